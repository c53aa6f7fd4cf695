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
            (
                #"{"token":"t","device_data":{"screen_width":"wide","languages":[]}}"#, "invalid_field",
                "'device_data.screen_width': expected a number"
            ),
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

    /// The decoder over `JSONValue` converts as Foundation's did: whole numbers to integers, null
    /// and absent alike for optionals, enums by raw value, and it names the field that failed.
    @Test func typesDecodeFromTheStrictReading() throws {
        struct Body: Decodable {
            enum Mode: String, Decodable { case on, off }
            var count: Int
            var ratio: Double
            var mode: Mode
            var note: String?
            var tags: [String: String]
            var items: [Item]
            struct Item: Decodable { var id: Int64 }
        }
        let body = try JSONBody.decode(
            Body.self, from: Array(#"{"count":1e2,"ratio":3,"mode":"on","note":null,"tags":{"a":"b"},"items":[{"id":7}]}"#.utf8))
        #expect(body.count == 100 && body.ratio == 3 && body.mode == .on && body.note == nil && body.tags == ["a": "b"] && body.items[0].id == 7)
        for (json, fragment) in [
            (#"{"count":1.5,"ratio":1,"mode":"on","tags":{},"items":[]}"#, "'count'"),
            (#"{"count":1,"ratio":1,"mode":"sideways","tags":{},"items":[]}"#, "'mode'"),
            (#"{"count":1,"ratio":1,"mode":"on","tags":{},"items":[{"id":"7"}]}"#, "'items[0].id': expected an integer"),
            (#"{"count":1,"ratio":1,"mode":"on","tags":{},"items":[],}"#, "trailing comma"),
        ] {
            do {
                _ = try JSONBody.decode(Body.self, from: Array(json.utf8))
                Issue.record("\(json) decoded")
            } catch {
                #expect(error.status == .badRequest && error.message.contains(fragment), "\(json): \(error.message)")
            }
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
