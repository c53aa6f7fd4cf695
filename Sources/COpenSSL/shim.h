#ifndef ATTRIBUTIOND_COPENSSL_SHIM_H
#define ATTRIBUTIOND_COPENSSL_SHIM_H
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

// What Swift cannot call directly: OpenSSL's macros and variadic functions, wrapped once.

/// A new P-256 private key as PKCS#8 PEM in a malloc'd buffer (`*length` bytes), or NULL.
static inline char *attributiond_p256_key_pem(size_t *length) {
    EVP_PKEY *key = EVP_EC_gen("P-256");
    if (key == NULL) return NULL;
    BIO *bio = BIO_new(BIO_s_mem());
    char *out = NULL;
    if (bio != NULL && PEM_write_bio_PrivateKey(bio, key, NULL, NULL, 0, NULL, NULL) == 1) {
        char *data = NULL;
        long size = BIO_get_mem_data(bio, &data);
        out = malloc((size_t)size);
        if (out != NULL) { memcpy(out, data, (size_t)size); *length = (size_t)size; }
    }
    BIO_free(bio);
    EVP_PKEY_free(key);
    return out;
}

/// A certificate signing request for `names` (NUL-separated, `count` of them; the first is the
/// subject's CN, all are DNS subject alternative names), signed with `key`, as DER in a malloc'd
/// buffer; its length, or -1.
static inline int attributiond_csr_der(EVP_PKEY *key, const char *names, int count, unsigned char **out) {
    X509_REQ *request = X509_REQ_new();
    if (request == NULL) return -1;
    int length = -1;
    X509_NAME *subject = X509_REQ_get_subject_name(request);
    STACK_OF(X509_EXTENSION) *extensions = sk_X509_EXTENSION_new_null();
    size_t sanLength = 0;
    const char *name = names;
    for (int i = 0; i < count; i++) { sanLength += strlen(name) + 5; name += strlen(name) + 1; }
    char *san = calloc(sanLength + 1, 1);
    name = names;
    for (int i = 0; i < count; i++) {
        if (i > 0) strcat(san, ",");
        strcat(san, "DNS:");
        strcat(san, name);
        name += strlen(name) + 1;
    }
    X509_EXTENSION *alternatives = X509V3_EXT_conf_nid(NULL, NULL, NID_subject_alt_name, san);
    if (X509_REQ_set_version(request, 0) == 1
        && X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC, (const unsigned char *)names, -1, -1, 0) == 1
        && alternatives != NULL && sk_X509_EXTENSION_push(extensions, alternatives) > 0
        && X509_REQ_add_extensions(request, extensions) == 1
        && X509_REQ_set_pubkey(request, key) == 1
        && X509_REQ_sign(request, key, EVP_sha256()) > 0) {
        *out = NULL;
        length = i2d_X509_REQ(request, out);
    }
    sk_X509_EXTENSION_pop_free(extensions, X509_EXTENSION_free);
    free(san);
    X509_REQ_free(request);
    return length;
}

/// Puts the PEM chain (leaf first) and PEM key into `context`; 1 when both load and match.
static inline int attributiond_use_pem(SSL_CTX *context, const char *chain, int chainLength, const char *keyPEM, int keyLength) {
    BIO *bio = BIO_new_mem_buf(chain, chainLength);
    if (bio == NULL) return 0;
    X509 *leaf = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    int ok = leaf != NULL && SSL_CTX_use_certificate(context, leaf) == 1;
    X509_free(leaf);
    X509 *next;
    while (ok && (next = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        if (SSL_CTX_add0_chain_cert(context, next) != 1) { X509_free(next); ok = 0; }
    }
    ERR_clear_error();  // the end of the chain reads as an error
    BIO_free(bio);
    if (!ok) return 0;
    BIO *keyBIO = BIO_new_mem_buf(keyPEM, keyLength);
    EVP_PKEY *key = keyBIO == NULL ? NULL : PEM_read_bio_PrivateKey(keyBIO, NULL, NULL, NULL);
    BIO_free(keyBIO);
    ok = key != NULL && SSL_CTX_use_PrivateKey(context, key) == 1 && SSL_CTX_check_private_key(context) == 1;
    EVP_PKEY_free(key);
    return ok;
}

/// The validity of the first certificate of a PEM chain, in seconds since 1970; 1 when read.
static inline int attributiond_certificate_validity(const char *pem, int length, long long *notBefore, long long *notAfter) {
    BIO *bio = BIO_new_mem_buf(pem, length);
    if (bio == NULL) return 0;
    X509 *certificate = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    BIO_free(bio);
    if (certificate == NULL) return 0;
    struct tm before, after;
    int ok = ASN1_TIME_to_tm(X509_get0_notBefore(certificate), &before) == 1 && ASN1_TIME_to_tm(X509_get0_notAfter(certificate), &after) == 1;
    if (ok) { *notBefore = (long long)timegm(&before); *notAfter = (long long)timegm(&after); }
    X509_free(certificate);
    return ok;
}

/// Verifies a certificate chain (`count` DER certificates, leaf first; the rest may include the
/// root) up to one of the PEM `roots`, at `atTime` (seconds since 1970), each certificate's
/// signature, validity and CA constraints checked by OpenSSL; and, when given, that the leaf has
/// the extension `leafOID` and the certificate after it `intermediateOID` (dotted). Writes the
/// leaf's public key as DER SubjectPublicKeyInfo to a malloc'd `*leafKey`; its length, or -1
/// (`*reason` then holds OpenSSL's verification error, or 0 when the input did not parse).
static inline int attributiond_verify_chain(
    const unsigned char *const *ders, const int *lengths, int count, const char *roots, int rootsLength, long long atTime,
    const char *leafOID, const char *intermediateOID, unsigned char **leafKey, int *reason) {
    *reason = 0;
    if (count < 1) return -1;
    int result = -1;
    X509 *leaf = NULL;
    STACK_OF(X509) *untrusted = sk_X509_new_null();
    X509_STORE *store = X509_STORE_new();
    X509_STORE_CTX *context = X509_STORE_CTX_new();
    BIO *bio = BIO_new_mem_buf(roots, rootsLength);
    int ok = untrusted != NULL && store != NULL && context != NULL && bio != NULL;
    for (int i = 0; ok && i < count; i++) {
        const unsigned char *pointer = ders[i];
        X509 *certificate = d2i_X509(NULL, &pointer, lengths[i]);
        if (certificate == NULL || pointer != ders[i] + lengths[i]) { X509_free(certificate); ok = 0; break; }
        if (i == 0) leaf = certificate;
        else if (sk_X509_push(untrusted, certificate) <= 0) { X509_free(certificate); ok = 0; }
    }
    int rootCount = 0;
    X509 *root;
    while (ok && (root = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        if (X509_STORE_add_cert(store, root) == 1) rootCount++;
        X509_free(root);
    }
    ERR_clear_error();
    if (ok && rootCount > 0 && X509_STORE_CTX_init(context, store, leaf, untrusted) == 1) {
        X509_VERIFY_PARAM *parameters = X509_STORE_CTX_get0_param(context);
        X509_VERIFY_PARAM_set_time(parameters, (time_t)atTime);
        if (X509_verify_cert(context) == 1) {
            int marked = 1;
            if (leafOID != NULL) {
                ASN1_OBJECT *object = OBJ_txt2obj(leafOID, 1);
                marked = object != NULL && X509_get_ext_by_OBJ(leaf, object, -1) >= 0;
                ASN1_OBJECT_free(object);
            }
            if (marked && intermediateOID != NULL) {
                ASN1_OBJECT *object = OBJ_txt2obj(intermediateOID, 1);
                X509 *intermediate = sk_X509_num(untrusted) > 0 ? sk_X509_value(untrusted, 0) : NULL;
                marked = object != NULL && intermediate != NULL && X509_get_ext_by_OBJ(intermediate, object, -1) >= 0;
                ASN1_OBJECT_free(object);
            }
            if (!marked) {
                *reason = -2;
            } else {
                EVP_PKEY *key = X509_get0_pubkey(leaf);
                *leafKey = NULL;
                result = key == NULL ? -1 : i2d_PUBKEY(key, leafKey);
            }
        } else {
            *reason = X509_STORE_CTX_get_error(context);
        }
    }
    ERR_clear_error();
    BIO_free(bio);
    X509_STORE_CTX_free(context);
    X509_STORE_free(store);
    sk_X509_pop_free(untrusted, X509_free);
    X509_free(leaf);
    return result;
}

/// Calls `callback` with the server name a client asks for (SNI), before the handshake picks a
/// certificate; `argument` comes back as its third parameter.
static inline void attributiond_set_server_name_callback(SSL_CTX *context, int (*callback)(SSL *, int *, void *), void *argument) {
    SSL_CTX_set_tlsext_servername_arg(context, argument);
    SSL_CTX_set_tlsext_servername_callback(context, callback);
}
#endif
