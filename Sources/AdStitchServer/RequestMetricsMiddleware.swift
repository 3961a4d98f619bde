import AdMetrics
import Hummingbird

/// Counts every answered request by its route pattern and final status (after errors became
/// problem documents and conditional GETs became 304s), and times it.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = AdStitchRequestContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        // The registered pattern (`/v1/campaigns/{id}/…`); no route matched (Hummingbird says
        // "NotFound"): one label for all, so unknown paths cannot grow the label set.
        let route = context.endpointPath.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "unmatched"
        self.metrics.request(route: route, method: request.method, status: response.status, duration: ContinuousClock.now - start)
        return response
    }
}
