import ArgumentParser
import Foundation

/// A file named on the command line (`-` is standard input), read whole.
struct InputFile {
    var bytes: [UInt8]
    var url: URL?
    var displayName: String

    static func read(_ path: String) throws -> InputFile {
        if path == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            return InputFile(bytes: [UInt8](data), url: nil, displayName: "<stdin>")
        }
        let url = URL(fileURLWithPath: path)
        do {
            let data = try Data(contentsOf: url)
            return InputFile(bytes: [UInt8](data), url: url, displayName: path)
        } catch {
            throw ValidationError("cannot read \(path): no such file or not readable")
        }
    }
}

/// Writes to standard output and standard error.
enum Output {
    static func write(_ text: String) {
        print(text, terminator: "")
    }

    static func error(_ text: String) {
        var stream = StandardError()
        print(text, to: &stream)
    }
}

struct StandardError: TextOutputStream {
    mutating func write(_ string: String) {
        FileHandle.standardError.write(Data(string.utf8))
    }
}
