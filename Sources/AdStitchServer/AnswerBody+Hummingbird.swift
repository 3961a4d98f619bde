import AdCampaignStore
import Hummingbird
import NIOCore

extension AnswerBody {
    /// The body for Hummingbird's writer (the router's answers).
    var responseBody: ResponseBody {
        self.buffers.count > 1 ? ResponseBody(contentsOf: self.buffers) : ResponseBody(byteBuffer: self.buffers.first ?? ByteBuffer())
    }
}
