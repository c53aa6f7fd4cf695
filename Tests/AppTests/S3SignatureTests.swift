import Attribution
import Testing

@testable import App

/// Signature V4 against the examples Amazon publishes for S3 ("Examples: Signature Calculations
/// in AWS Signature Version 4", header-based authentication): the same key, date and request give
/// the published signatures.
@Suite struct S3SignatureTests {
    let signature = S3Signature(
        accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1")
    let time = Timestamp(iso8601: "2013-05-24T00:00:00Z")!

    func authorization(_ headers: [(String, String)]) -> String? { headers.first { $0.0 == "authorization" }?.1 }

    @Test func getObjectWithARange() {
        let headers = signature.sign(
            method: "GET", path: "/test.txt", query: [], headers: [("host", "examplebucket.s3.amazonaws.com"), ("range", "bytes=0-9")],
            payloadSHA256: S3Signature.emptyPayloadSHA256, at: time)
        #expect(
            authorization(headers)
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(headers.contains { $0 == ("x-amz-date", "20130524T000000Z") })
    }

    @Test func putObjectWithAStorageClass() {
        let headers = signature.sign(
            method: "PUT", path: "/test%24file.text", query: [],
            headers: [
                ("Host", "examplebucket.s3.amazonaws.com"), ("Date", "Fri, 24 May 2013 00:00:00 GMT"),
                ("x-amz-storage-class", "REDUCED_REDUNDANCY"),
            ],
            payloadSHA256: "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072", at: time)
        #expect(authorization(headers)?.hasSuffix("Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd") == true)
        #expect(S3Signature.encode("test$file.text", encodingSlash: false) == "test%24file.text")
    }

    @Test func getBucketLifecycleAndListObjects() {
        let host = [("host", "examplebucket.s3.amazonaws.com")]
        let lifecycle = signature.sign(
            method: "GET", path: "/", query: [("lifecycle", "")], headers: host, payloadSHA256: S3Signature.emptyPayloadSHA256, at: time)
        #expect(authorization(lifecycle)?.hasSuffix("Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543") == true)
        let list = signature.sign(
            method: "GET", path: "/", query: [("prefix", "J"), ("max-keys", "2")], headers: host,
            payloadSHA256: S3Signature.emptyPayloadSHA256, at: time)
        #expect(authorization(list)?.hasSuffix("Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7") == true)
    }

    @Test func keysKeepTheirSlashesAndEqualsSignsAndEncodeEverythingElse() {
        #expect(
            S3Signature.encode("table=clicks/date=2026-12-04/a b+c.csv.gz", encodingSlash: false) == "table=clicks/date=2026-12-04/a%20b%2Bc.csv.gz")
        #expect(S3Signature.encode("a/b=c", encodingSlash: true) == "a%2Fb%3Dc")
    }
}
