import Testing

@Suite("Tools")
struct ToolTests {
    @Test("a tool runs to completion and its output is captured")
    func toolRuns() async throws {
        let result = try await Tool.run("gst-launch-1.0", ["--version"], timeout: 20)
        #expect(result.status == 0)
        #expect(result.output.contains("GStreamer"))
    }
}

@Suite("Tools with a server")
struct ToolServerTests {
    @Test("a tool runs while the static server runs")
    func toolRunsBesideServer() async throws {
        let server = try await StaticServer(root: Repository.root)
        let result = try await Tool.run("gst-launch-1.0", ["--version"], timeout: 20)
        #expect(result.status == 0)
        _ = server
    }
}
