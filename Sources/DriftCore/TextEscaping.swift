/// Text escaped for the formats driftfix writes by hand, one rule per format: JSON string literals (the HTML report's
/// data, OpenTimelineIO) and markup (HTML, FCPXML). Prometheus labels and terminal lines have rules of their own,
/// beside their writers.
public enum TextEscaping {
    /// A JSON string literal, quotes included. Control characters are escaped; so are U+2028 and U+2029 (not allowed
    /// in older JavaScript strings) and `<`, so that a name holding `</script>` cannot end the script it sits in.
    public static func jsonString(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<", "\u{2028}", "\u{2029}": out += unicodeEscape(scalar.value)
            case let c where c.value < 0x20: out += unicodeEscape(c.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Text for XML or HTML: in an attribute value, the five specials as entities and line feeds and tabs as character
    /// references, so that the attribute keeps them rather than normalising them to spaces; as element content
    /// (`inAttribute: false`), only `&`, `<` and `>`, so that the text stays as it was for readers that do not decode
    /// more.
    public static func markup(_ text: String, inAttribute: Bool = true) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case _ where !inAttribute: out.append(character)
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\n": out += "&#10;"
            case "\t": out += "&#9;"
            default: out.append(character)
            }
        }
        return out
    }

    private static func unicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
