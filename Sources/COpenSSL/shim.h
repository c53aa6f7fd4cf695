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

/// Calls `callback` with the server name a client asks for (SNI), before the handshake picks a
/// certificate; `argument` comes back as its third parameter.
static inline void attributiond_set_server_name_callback(SSL_CTX *context, int (*callback)(SSL *, int *, void *), void *argument) {
    SSL_CTX_set_tlsext_servername_arg(context, argument);
    SSL_CTX_set_tlsext_servername_callback(context, callback);
}
#endif
