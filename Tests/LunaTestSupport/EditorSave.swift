import Foundation

/// Saves that an editor might do.
package enum EditorSave: String, CaseIterable, Sendable {
    case inPlace, truncateThenWrite, tempThenRename, deleteThenRecreate
    /// vim's default: probe the folder with a file named 4913, rename the script to a
    /// backup, write a new script, set its mode, remove the backup.
    case vimBackupRename
    /// vim with `backupcopy=yes`: copy the script to a backup, write it in place, set its mode.
    case vimBackupCopy

    /// Writes `text` to `path` as this editor saves.
    package func save(_ text: String, to path: String) throws {
        let data = Data(text.utf8)
        switch self {
        case .inPlace:
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
            try handle.write(contentsOf: data)
            try handle.close()
        case .truncateThenWrite:
            let truncate = try FileHandle(forUpdating: URL(fileURLWithPath: path))
            try truncate.truncate(atOffset: 0)
            try truncate.close()
            let write = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try write.write(contentsOf: data)
            try write.close()
        case .tempThenRename:
            let temp = path + ".swp~"
            _ = FileManager.default.createFile(atPath: temp, contents: data)
            _ = rename(temp, path)
        case .deleteThenRecreate:
            try FileManager.default.removeItem(atPath: path)
            _ = FileManager.default.createFile(atPath: path, contents: data)
        case .vimBackupRename:
            let folder = (path as NSString).deletingLastPathComponent
            _ = FileManager.default.createFile(atPath: folder + "/4913", contents: nil)
            try FileManager.default.removeItem(atPath: folder + "/4913")
            _ = rename(path, path + "~")
            let handle = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            _ = data.withUnsafeBytes { write(handle, $0.baseAddress, $0.count) }
            close(handle)
            chmod(path, 0o644)
            try FileManager.default.removeItem(atPath: path + "~")
        case .vimBackupCopy:
            try FileManager.default.copyItem(atPath: path, toPath: path + "~")
            let handle = open(path, O_WRONLY | O_TRUNC)
            _ = data.withUnsafeBytes { write(handle, $0.baseAddress, $0.count) }
            close(handle)
            chmod(path, 0o644)
            try FileManager.default.removeItem(atPath: path + "~")
        }
    }
}
