extension StringProtocol where SubSequence == Substring {
    /// The text without white space at either end: what Foundation's `trimmingCharacters(in: .whitespaces)` gives a
    /// line, without its bridging through NSString (a scan trims lines of every sidecar and header it reads).
    public var trimmedWhitespace: Substring {
        var text = self[...]
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return text
    }
}
