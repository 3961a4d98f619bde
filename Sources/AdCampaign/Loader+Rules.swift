import Foundation
import HLSPlaylist
import Yams

extension Loader {
    mutating func rules(_ node: Node?, breaks: [String], pools: [String], adServers: Set<String> = []) -> [Rule] {
        var rules: [Rule] = []
        for (index, item) in self.reader.sequence(node, "rules").enumerated() {
            let field = "rules[\(index)]"
            let fields = self.reader.mapping(item, field, allowed: ["name", "when", "then"])
            let name = self.reader.string(fields["name"], "\(field).name") ?? "rule \(index + 1)"
            let condition = self.condition(fields["when"], "\(field).when")
            guard fields["then"] != nil else {
                self.reader.issue(item, "\(field).then", "is required: what the rule does (exclude, exclude_seen, boost, pools, ad_server)")
                continue
            }
            let action = self.action(fields["then"], "\(field).then", breaks: breaks, pools: pools, adServers: adServers)
            rules.append(Rule(name: name, condition: condition, action: action))
        }
        return rules
    }

    mutating func condition(_ node: Node?, _ field: String) -> Condition {
        var condition = Condition()
        guard let node else { return condition }
        let fields = self.reader.mapping(node, field, allowed: ["attributes", "time", "days", "flight", "seen"])
        if let attributes = fields["attributes"] {
            if case .mapping(let mapping) = attributes {
                for (key, value) in mapping {
                    guard let name = key.string, let pattern = self.reader.pattern(value, "\(field).attributes.\(name)") else { continue }
                    condition.attributes.append((name, pattern))
                }
            } else {
                self.reader.issue(attributes, "\(field).attributes", "expected a mapping of attribute names to patterns")
            }
        }
        condition.time = self.timeWindow(fields["time"], "\(field).time")
        if let days = fields["days"] {
            var set: Set<Weekday> = []
            for name in self.reader.strings(days, "\(field).days") {
                guard let day = Weekday(rawValue: name.lowercased()) else {
                    self.reader.issue(days, "\(field).days", "\"\(name)\" is not a day; use mon, tue, wed, thu, fri, sat, sun")
                    continue
                }
                set.insert(day)
            }
            condition.days = set
        }
        condition.flight = self.flight(fields["flight"], "\(field).flight")
        condition.seen = fields["seen"].flatMap { self.reader.pattern($0, "\(field).seen") }
        return condition
    }

    private mutating func timeWindow(_ node: Node?, _ field: String) -> TimeWindow? {
        guard let node else { return nil }
        let fields = self.reader.mapping(node, field, allowed: ["from", "to", "zone"])
        let from = self.minutes(fields["from"], "\(field).from", parent: node)
        let to = self.minutes(fields["to"], "\(field).to", parent: node)
        let zone = self.zone(fields["zone"], "\(field).zone") ?? "UTC"
        guard let from, let to else { return nil }
        return TimeWindow(from: from, to: to, zone: zone)
    }

    /// `HH:MM` as minutes since midnight.
    private mutating func minutes(_ node: Node?, _ field: String, parent: Node) -> Int? {
        guard let text = self.reader.string(node, field, required: true, parent: parent) else { return nil }
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]), (0...24).contains(hours), (0..<60).contains(minutes),
            hours * 60 + minutes <= 24 * 60
        else {
            self.reader.issue(node, field, "expected a time of day as HH:MM, e.g. \"18:30\"")
            return nil
        }
        return hours * 60 + minutes
    }

    /// An IANA time zone, checked against the system's database.
    private mutating func zone(_ node: Node?, _ field: String) -> String? {
        guard let name = self.reader.string(node, field) else { return nil }
        guard TimeZone(identifier: name) != nil else {
            self.reader.issue(node, field, "\"\(name)\" is not an IANA time zone; use a name such as Europe/Madrid or UTC")
            return nil
        }
        return name
    }

    /// `from`/`until` as dates (`2026-12-01`, midnight in `zone`) or ISO 8601 date-times.
    private mutating func flight(_ node: Node?, _ field: String) -> Flight? {
        guard let node else { return nil }
        let fields = self.reader.mapping(node, field, allowed: ["from", "until", "zone"])
        let zone = self.zone(fields["zone"], "\(field).zone") ?? "UTC"
        let from = self.instant(fields["from"], "\(field).from", zone: zone)
        let until = self.instant(fields["until"], "\(field).until", zone: zone)
        if fields["from"] == nil, fields["until"] == nil { self.reader.issue(node, field, "needs from and/or until") }
        if let from, let until, until <= from { self.reader.issue(fields["until"], "\(field).until", "must be after from") }
        return Flight(from: from, until: until)
    }

    private mutating func instant(_ node: Node?, _ field: String, zone: String) -> ExactDecimal? {
        guard let text = self.reader.string(node, field) else { return nil }
        // A bare date is midnight at the start of that day in the flight's zone. DateTime checks
        // the calendar (no 31 November, no 29 February 2027) instead of normalising it.
        let isDate = text.utf8.count == 10
        guard let dateTime = DateTime(isDate ? text + "T00:00:00" : text),
            CampaignLimits.years.contains(Int(text.prefix(4)) ?? 0)
        else {
            self.reader.issue(
                node,
                field,
                "\"\(text)\" is not a date (2026-12-01) or an ISO 8601 date-time (2026-12-01T18:00:00Z) of a real day in the years "
                    + "\(CampaignLimits.years.lowerBound)–\(CampaignLimits.years.upperBound)"
            )
            return nil
        }
        guard !dateTime.hasTimeZone, let timeZone = TimeZone(identifier: zone) else { return dateTime.secondsSinceEpoch }
        // Without an offset the date-time is wall-clock time in the flight's zone (DateTime read it
        // as UTC). The offset is the zone's at that instant, so DST counts.
        let wallClock = dateTime.secondsSinceEpoch
        let guess = Date(timeIntervalSince1970: wallClock.doubleValue)
        let offset = timeZone.secondsFromGMT(for: guess.addingTimeInterval(-Double(timeZone.secondsFromGMT(for: guess))))
        return wallClock - ExactDecimal(offset)
    }

    private mutating func action(_ node: Node?, _ field: String, breaks: [String], pools: [String], adServers: Set<String>) -> Action {
        var action = Action()
        let fields = self.reader.mapping(node, field, allowed: ["exclude", "exclude_seen", "boost", "pools", "ad_server"])
        if let node = fields["ad_server"], let name = self.reader.string(node, "\(field).ad_server") {
            if name == "none" || adServers.contains(name) {
                action.adServer = name
            } else {
                self.reader.issue(
                    node,
                    "\(field).ad_server",
                    "names ad server \"\(name)\", which is not in ad_servers"
                        + (adServers.isEmpty
                            ? " (there are none: add ad_servers: { \(name): { vast: URL } })" : " (\(adServers.sorted().joined(separator: ", ")))")
                        + "; or write none for the pools alone"
                )
            }
        }
        for (index, item) in self.reader.sequence(
            fields["exclude"].map { node in
                if case .scalar = node { return Node.sequence(.init([node])) }
                return node
            },
            "\(field).exclude"
        ).enumerated() {
            if let pattern = self.reader.pattern(item, "\(field).exclude[\(index)]") { action.exclude.append(pattern) }
        }
        action.excludeSeen = self.reader.bool(fields["exclude_seen"], "\(field).exclude_seen") ?? false
        if let boost = fields["boost"] {
            if case .mapping(let mapping) = boost {
                for (key, value) in mapping {
                    guard let ad = key.string, let factor = self.reader.number(value, "\(field).boost.\(ad)") else { continue }
                    if factor < 0 || factor > CampaignLimits.maxWeight {
                        self.reader.issue(
                            value,
                            "\(field).boost.\(ad)",
                            "a weight multiplier must be from 0 to \(Int(CampaignLimits.maxWeight)) (0 stops the ad, 2 doubles its weight)"
                        )
                    }
                    if self.adNodes[ad] == nil, ad != self.leavingOut {
                        self.reader.issue(key, "\(field).boost.\(ad)", "names ad \"\(ad)\", which is in no pool")
                    }
                    action.boost[ad] = factor
                }
            } else {
                self.reader.issue(boost, "\(field).boost", "expected a mapping of ad ids to weight multipliers")
            }
        }
        if let override = fields["pools"] {
            if case .mapping(let mapping) = override {
                for (key, value) in mapping {
                    guard let breakID = key.string else { continue }
                    // A catalogue's break ids are its titles' (markers, schedule): not known here.
                    if !breaks.contains(breakID), !self.isCatalogue {
                        self.reader.issue(key, "\(field).pools.\(breakID)", "names break \"\(breakID)\", which does not exist")
                    }
                    let names = self.reader.strings(value, "\(field).pools.\(breakID)")
                    for name in names where !pools.contains(name) {
                        self.reader.issue(value, "\(field).pools.\(breakID)", "names pool \"\(name)\", which does not exist")
                    }
                    action.pools[breakID] = names
                }
            } else {
                self.reader.issue(override, "\(field).pools", "expected a mapping of break ids to pool lists")
            }
        }
        return action
    }

    /// `startup:`: a list of entries, or two compared by an experiment
    /// (`{ experiment: { a: [...], b: [...], split: 50 } }`, ``StartupExperiment``).
    mutating func startup(_ node: Node?) -> (rules: [StartupRule], experiment: StartupExperiment?) {
        guard let node, case .mapping = node else { return (self.startupRules(node, "startup"), nil) }
        let fields = self.reader.mapping(node, "startup", allowed: ["experiment"])
        guard let experiment = fields["experiment"] else {
            self.reader.issue(
                node,
                "startup",
                "expected a list of startup entries, or { experiment: { a: [ …entries… ], b: [ …entries… ], split: 50 } }"
            )
            return ([], nil)
        }
        let arms = self.reader.mapping(experiment, "startup.experiment", allowed: ["a", "b", "split"])
        for arm in ["a", "b"] where arms[arm] == nil {
            self.reader.issue(experiment, "startup.experiment.\(arm)", "is required: each arm is a list of startup entries")
        }
        var split = 50
        if let node = arms["split"], let value = self.reader.integer(node, "startup.experiment.split") {
            if (0...100).contains(value) {
                split = value
            } else {
                self.reader.issue(node, "startup.experiment.split", "\(value) is not a percentage: give the share of sessions in b, 0 to 100")
            }
        }
        let a = self.startupRules(arms["a"], "startup.experiment.a")
        let b = self.startupRules(arms["b"], "startup.experiment.b")
        return ([], StartupExperiment(a: a, b: b, split: split))
    }

    /// A list of startup entries at `field`.
    private mutating func startupRules(_ node: Node?, _ field: String) -> [StartupRule] {
        var rules: [StartupRule] = []
        let list = field
        for (index, item) in self.reader.sequence(node, list).enumerated() {
            let field = "\(list)[\(index)]"
            let fields = self.reader.mapping(item, field, allowed: ["when", "pick"])
            let condition = self.condition(fields["when"], "\(field).when")
            guard let pickNode = fields["pick"] else {
                self.reader.issue(item, "\(field).pick", "is required, e.g. pick: { lowest: true }")
                continue
            }
            let pickFields = self.reader.mapping(
                pickNode,
                "\(field).pick",
                allowed: ["lowest", "max_bandwidth", "max_resolution", "codecs", "video_range", "bandwidth_hint"]
            )
            var pick = StartupPick()
            pick.lowest = self.reader.bool(pickFields["lowest"], "\(field).pick.lowest") ?? false
            pick.maxBandwidth = self.reader.integer(pickFields["max_bandwidth"], "\(field).pick.max_bandwidth")
            if let maximum = pick.maxBandwidth, !(1...CampaignLimits.maxBandwidth).contains(maximum) {
                self.reader.issue(
                    pickFields["max_bandwidth"],
                    "\(field).pick.max_bandwidth",
                    "must be bits/s from 1 to \(CampaignLimits.maxBandwidth), e.g. 3000000"
                )
            }
            if let text = self.reader.string(pickFields["max_resolution"], "\(field).pick.max_resolution") {
                pick.maxResolution = Resolution(text)
                if pick.maxResolution == nil {
                    self.reader.issue(pickFields["max_resolution"], "\(field).pick.max_resolution", "expected WIDTHxHEIGHT, e.g. 1280x720")
                }
            }
            pick.codecs = self.reader.string(pickFields["codecs"], "\(field).pick.codecs")
            pick.videoRange = self.reader.string(pickFields["video_range"], "\(field).pick.video_range").map(VideoRange.init(rawValue:))
            if let hint = pickFields["bandwidth_hint"] {
                pick.bandwidthSafety = self.reader.number(hint, "\(field).pick.bandwidth_hint")
                if let safety = pick.bandwidthSafety, !(safety > 0 && safety <= 1) {
                    self.reader.issue(
                        hint,
                        "\(field).pick.bandwidth_hint",
                        "is the share of the viewer's measured bandwidth to use, between 0 and 1 (e.g. 0.8)"
                    )
                }
            }
            rules.append(StartupRule(condition: condition, pick: pick))
        }
        return rules
    }
}
