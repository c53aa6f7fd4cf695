import Foundation
import Testing
@testable import HTTP

private struct Signup: Decodable {
    struct Device: Decodable {
        var screen_width: Double
        var languages: [String]
    }
    var token: String
    var device_data: Device
}

private func decodeError(_ json: String) -> HTTPError? {
    do {
        _ = try JSONBody.decode(Signup.self, from: Array(json.utf8))
        return nil
    } catch {
        return error
    }
}

@Suite struct JSONCodingTests {
    @Test func decodesAValidBody() throws {
        let value = try JSONBody.decode(Signup.self, from: Array(#"{"token":"t","device_data":{"screen_width":390,"languages":["fr"]}}"#.utf8))
        #expect(value.device_data.screen_width == 390)
    }

    @Test func everyFailureIs400NamingTheField() throws {
        let cases: [(String, String, String)] = [
            ("", "invalid_json", "empty"),
            ("{not json", "invalid_json", "not valid JSON"),
            (#"{"device_data":{"screen_width":1,"languages":[]}}"#, "missing_field", "'token'"),
            (#"{"token":"t","device_data":{"screen_width":"wide","languages":[]}}"#, "invalid_field", "'device_data.screen_width': expected a number"),
            (#"{"token":"t","device_data":{"screen_width":1,"languages":[1]}}"#, "invalid_field", "'device_data.languages[0]': expected a string"),
            (#"{"token":null,"device_data":{"screen_width":1,"languages":[]}}"#, "invalid_field", "'token'"),
            (#"{"token":"t","device_data":[]}"#, "invalid_field", "'device_data': expected an object"),
        ]
        for (body, code, fragment) in cases {
            let error = try #require(decodeError(body), "\(body)")
            #expect(error.status == .badRequest, "\(body)")
            #expect(error.code == code, "\(body)")
            #expect(error.message.contains(fragment), "\(body): \(error.message)")
        }
    }

    @Test func errorBodyIsValidJSONEvenWithQuotesAndControlCharacters() throws {
        let body = ErrorBody.json(code: "bad", message: "a \"quoted\" \\ value\nwith\u{1}control")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: String])
        #expect(object["message"] == "a \"quoted\" \\ value\nwith\u{1}control")
    }

    @Test func jsonResponsesSayNoStore() throws {
        let response = try HTTPResponse.json(["a": 1])
        #expect(response.headers["Cache-Control"] == "no-store")
        #expect(response.headers["Content-Type"] == "application/json")
    }
}
