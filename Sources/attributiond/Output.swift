#if canImport(Glibc)
    import Glibc
#endif

enum FileHandleOutput {
    /// Writes straight to descriptor 2: one write per line, so lines from threads do not interleave.
    static func standardError(_ text: String) {
        let line = text.hasSuffix("\n") ? text : text + "\n"
        line.utf8CString.withUnsafeBufferPointer { buffer in
            _ = write(2, buffer.baseAddress, buffer.count - 1)
        }
    }
}
