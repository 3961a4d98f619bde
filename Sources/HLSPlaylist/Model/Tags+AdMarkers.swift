/// `EXT-X-CUE-OUT` — the common (non-RFC) marker of an ad break's start, written as
/// `#EXT-X-CUE-OUT:30`, `#EXT-X-CUE-OUT:DURATION=30` or bare.
public struct CueOut: Sendable, Hashable {
    /// The value after the colon as written; nil for a bare tag.
    public var value: Substring?

    public init(value: Substring?) {
        self.value = value
    }

    public init(duration: ExactDecimal) {
        self.value = Substring(duration.description)
    }

    /// The break's duration in seconds, when the value gives one.
    public var duration: ExactDecimal? {
        guard let value else { return nil }
        if let number = ExactDecimal(value) { return number }
        return looseAttributes(value)["DURATION"].flatMap { ExactDecimal($0) }
    }
}

/// `EXT-X-CUE-OUT-CONT` — progress through a break: `#EXT-X-CUE-OUT-CONT:10/30` or
/// `#EXT-X-CUE-OUT-CONT:ElapsedTime=10,Duration=30,SCTE35=…`.
public struct CueOutCont: Sendable, Hashable {
    public var value: Substring?

    public init(value: Substring?) {
        self.value = value
    }

    public var elapsed: ExactDecimal? {
        guard let value else { return nil }
        if let slash = self.progressSlash { return ExactDecimal(value[..<slash]) }
        return looseAttributes(value)["ELAPSEDTIME"].flatMap { ExactDecimal($0) }
    }

    public var duration: ExactDecimal? {
        guard let value else { return nil }
        if let slash = self.progressSlash { return ExactDecimal(value[value.index(after: slash)...]) }
        return looseAttributes(value)["DURATION"].flatMap { ExactDecimal($0) }
    }

    /// The slash of the `10/30` form. The attribute form can hold slashes too — in the base64
    /// of `SCTE35=/DAlAAAA…` — so a value with `=` is never read as `n/m`.
    private var progressSlash: Substring.Index? {
        guard let value, !value.contains("=") else { return nil }
        return value.firstIndex(of: "/")
    }
}

/// Ad-marker tags follow no standard grammar; read `Name=Value` pairs leniently, names uppercased.
private func looseAttributes(_ text: Substring) -> [String: Substring] {
    var result: [String: Substring] = [:]
    for pair in text.split(separator: ",") {
        guard let equals = pair.firstIndex(of: "=") else { continue }
        let value = pair[pair.index(after: equals)...]
        result[pair[..<equals].uppercased()] =
            value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2
            ? value.dropFirst().dropLast() : value
    }
    return result
}
