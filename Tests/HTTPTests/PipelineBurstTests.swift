import Dispatch
import Foundation
import TestSupport
import Testing

@testable import HTTP

/// Carries out the machine's actions the harshest way an I/O layer could: re-entrantly, a handler
/// that answers inline doing so in the middle of the burst's actions (as `Connection` once did).
/// The socket is read only while the machine says so, as `Connection` does after every batch.
private final class ReentrantDriver {
    var machine = ConnectionStateMachine(limits: HTTPServerLimits(), now: 1, dateLine: { Array("Date: X\r\n".utf8) })
    var deferred: [UInt64] = []
    var responses = 0
    /// Which requests (by sequence) answer inline; the others wait in `deferred`.
    let answersInline: (UInt64) -> Bool

    init(answersInline: @escaping (UInt64) -> Bool) { self.answersInline = answersInline }

    var socketPaused: Bool { machine.isReadingPaused }

    func perform(_ actions: [ConnectionStateMachine.Action]) {
        for action in actions {
            switch action {
            case .dispatch(_, let sequence):
                if answersInline(sequence) {
                    perform(machine.responseReady(.text("ok"), sequence: sequence, now: 1))
                } else {
                    deferred.append(sequence)
                }
            case .write(let bytes): responses += String(decoding: bytes, as: UTF8.self).components(separatedBy: "HTTP/1.1 200").count - 1
            case .close, .abort, .refusedResponse: break
            }
        }
    }

    /// What a socket would hand over: nothing while paused (the bytes stay in the kernel).
    func receive(_ bytes: inout [UInt8], chunk: Int = 4096) {
        while !bytes.isEmpty, !socketPaused {
            let part = Array(bytes.prefix(chunk))
            bytes.removeFirst(part.count)
            perform(machine.received(part, now: 1))
        }
    }

    func answerDeferred() {
        while !deferred.isEmpty {
            let sequence = deferred.removeFirst()
            perform(machine.responseReady(.text("ok"), sequence: sequence, now: 1))
        }
    }
}

@Suite struct PipelineBurstTests {
    static let bursts = [15, 16, 17, 500]

    @Test(arguments: bursts, [0, 1, 3])
    func afterABurstTheSocketReadsAgainAndTheNextRequestIsServed(burst: Int, deferEvery: Int) {
        // deferEvery 0: every handler inline; 1: every one deferred; 3: every third deferred.
        let driver = ReentrantDriver { sequence in deferEvery == 0 || sequence % UInt64(deferEvery) != 0 }
        var kernel = Array(String(repeating: get("/x"), count: burst).utf8)
        // Whatever is owed is answered, the socket read whenever the machine allows it.
        for _ in 0...(burst + 1) {
            driver.receive(&kernel)
            driver.answerDeferred()
        }
        #expect(kernel.isEmpty)
        #expect(driver.responses == burst)
        #expect(!driver.socketPaused, "burst \(burst): reading stayed paused after every response was written")
        var after = Array(get("/after").utf8)
        driver.receive(&after)
        driver.answerDeferred()
        #expect(driver.responses == burst + 1)
    }

    @Test(arguments: bursts)
    func overTheSocketOneMoreRequestIsAnsweredWithinASecond(burst: Int) throws {
        let server = try TestServer(configure: { router in
            router.getInline("/inline") { _ in .text("i") }
        })
        let client = try server.client(timeout: 1)
        // Inline and pool-run handlers mixed: /inline answers on the loop, /health on the pool.
        let burstText = (0..<burst).map { $0 % 4 == 3 ? get("/health") : get("/inline") }.joined()
        client.send(burstText)
        for index in 0..<burst {
            let response = try #require(client.readResponse(), "burst \(burst): response \(index) missing")
            #expect(response.status == 200)
        }
        let started = Date()
        client.send(get("/inline"))
        let last = try #require(client.readResponse(), "burst \(burst): the request after the burst was never read")
        #expect(last.bodyText == "i")
        #expect(Date().timeIntervalSince(started) < 1)
    }
}
