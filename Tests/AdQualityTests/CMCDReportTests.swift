import Foundation
import Testing

@testable import AdQuality

/// CMCD v2 event mode (CTA-5004-B) reports, `application/cmcd`: one payload a line, read into the
/// same events as the JSON reports (docs/quality.md "CMCD").
@Suite("CMCD event mode reports")
struct CMCDReportTests {
    /// A session as a CMCD v2 player reports it: starting, playing after 850 ms at 2.5 Mbit/s, a
    /// 1.2 s rebuffering at 9.1 s, a switch to 4 Mbit/s, a non-fatal error, the end — its `ts`
    /// shifted by `skew` ms (a device clock that far off).
    static func session(skew: Int64 = 0) -> String {
        let t = 1_700_000_000_000 + skew
        return """
            e=ps,sid="s-1",ts=\(t),sta=s,v=2
            e=ps,sid="s-1",ts=\(t + 850),sta=p,pt=0,msd=850,br=2500,sf=h,st=v,v=2
            e=ps,sid="s-1",ts=\(t + 10_000),sta=r,pt=9100,v=2
            e=ps,sid="s-1",ts=\(t + 11_200),sta=p,pt=9100,v=2
            e=t,sid="s-1",ts=\(t + 20_000),bl=(5000),br=4000,pt=18000,mtp=12000,v=2
            e=e,sid="s-1",ts=\(t + 21_000),ec=("ERR_1" "ERR_2"),pt=19000,v=2
            e=ps,sid="s-1",ts=\(t + 30_000),sta=e,pt=28000,v=2

            """
    }

    static func read(_ text: String) throws(QualityReport.Problem) -> QualityReport {
        try QualityReport(cmcd: Array(text.utf8), received: 5)
    }

    @Test("a session's play states, start delay, bitrates and errors become the JSON reports' events")
    func events() throws {
        let report = try Self.read(Self.session())
        let events = report.events
        #expect(events.map(\.kind) == [.startup, .level, .stall, .level, .error, .ended], "\(events)")
        #expect(events[0].ms == 850)
        #expect(events[1].at == 0 && events[1].bandwidth == 2_500_000)
        #expect(events[2].at == 9_100 && events[2].ms == 1_200)
        #expect(events[3].at == 18_000 && events[3].bandwidth == 4_000_000)
        #expect(events[4].fatal == false && events[4].code == "ERR_1 ERR_2" && events[4].at == 19_000)
        #expect(events[5].at == 28_000)
        #expect(events.allSatisfy { $0.received == 5 } && report.ignored == 0 && !report.replacesAccessLog)
    }

    @Test("a device clock hours off, or CRLF line ends, change nothing: only differences of its own readings are used")
    func clockSkew() throws {
        let straight = try Self.read(Self.session()).events
        for skew: Int64 in [-3 * 3_600_000, 7 * 3_600_000, 86_400_000 * 400] {
            #expect(try Self.read(Self.session(skew: skew)).events == straight)
        }
        #expect(try Self.read(Self.session().replacingOccurrences(of: "\n", with: "\r\n")).events == straight)
    }

    @Test("a stall still open at the last line closes there; a fatal state is a fatal error; quit ends; unknown events are ignored")
    func shapes() throws {
        let report = try Self.read(
            """
            e=ps,ts=1000,sta=p,pt=0
            e=ps,ts=5000,sta=r,pt=4000
            e=t,ts=7500,pt=4000
            e=zz,ts=7600
            sta=p,ts=7700
            """
        )
        #expect(report.events.map(\.kind) == [.stall] && report.events[0].ms == 2_600 && report.ignored == 2)
        let fatal = try Self.read("e=ps,ts=1,sta=f,pt=3000,ec=(\"DRM\")\ne=ps,ts=2,sta=q,pt=3000")
        #expect(fatal.events.map(\.kind) == [.error, .ended] && fatal.events[0].fatal == true && fatal.events[0].code == "DRM")
        // Booleans bare or ?1/?0, parameters, decimals and tokens: read, not refused.
        let rich = try Self.read("e=t,bs,su=?0,pr=1.5,ot=v;x=1,cid=\"a\\\"b\",nor=(\"next.ts\")")
        #expect(rich.events.isEmpty && rich.ignored == 0)
    }

    @Test("a value of the wrong kind names its line and key; a broken line says where; bounds hold")
    func problems() {
        func problem(_ text: String) -> QualityReport.Problem? {
            do {
                _ = try Self.read(text)
                return nil
            } catch {
                return error
            }
        }
        #expect(problem("e=ps,sta=r\ne=ps,ts=abc,sta=p")?.description == "line 2 ts: must be a number from 0 to 9007199254740992")
        #expect(problem("e=ps,pt=-5,sta=r")?.description.hasPrefix("line 1 pt: must be a number") == true)
        #expect(problem("e=e,ec=\"unterminated")?.description.hasPrefix("line 1: unterminated string") == true)
        #expect(problem("e=ps,,sta=r")?.description.hasPrefix("line 1: expected a key") == true)
        #expect(problem("E=ps")?.description.hasPrefix("line 1: expected a key") == true)
        #expect(problem(String(repeating: "e=t,ts=1\n", count: 201))?.message.contains("at most 200") == true)
        #expect(problem("e=t,cid=\"" + String(repeating: "x", count: 5_000) + "\"")?.message == "is longer than 4096 bytes")
        #expect(problem("e=t,bl=(" + String(repeating: "1 ", count: 70) + ")")?.message.hasPrefix("more than 64 items") == true)
    }
}
