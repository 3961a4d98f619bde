import AdCampaign
import Foundation
import HLSPlaylist

extension Condition {
    /// Whether every part of the condition holds for the viewer.
    public func holds(for context: ViewerContext) -> Bool {
        for (name, pattern) in self.attributes {
            guard let value = context.attributes[name], pattern.matches(value) else { return false }
        }
        if self.time != nil || self.days != nil {
            let calendar = self.time?.calendar ?? TimeWindow.utc
            let parts = calendar.dateComponents([.hour, .minute, .weekday], from: context.at)
            if let time = self.time, !time.contains(minute: (parts.hour ?? 0) * 60 + (parts.minute ?? 0)) { return false }
            if let days = self.days, let weekday = parts.weekday.flatMap(Weekday.init(number:)), !days.contains(weekday) { return false }
        }
        if let flight = self.flight {
            let now = ExactDecimal(Int(context.at.timeIntervalSince1970.rounded(.down)))
            if let from = flight.from, now < from { return false }
            if let until = flight.until, now >= until { return false }
        }
        if let seen = self.seen, !context.seen.contains(where: { seen.matches($0) }) { return false }
        return true
    }
}
