//go:build windows

package mcp

import (
	"io/fs"

	"golang.org/x/sys/windows"
)

// links is how many names (hard links) the file at path has: Windows
// keeps the count in the file's information, not in what Lstat returns.
// The handle opens the link itself, not what a reparse point leads to.
func links(path string, _ fs.FileInfo) (uint64, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, err
	}
	h, err := windows.CreateFile(p, 0, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return 0, err
	}
	defer windows.CloseHandle(h)
	var d windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(h, &d); err != nil {
		return 0, err
	}
	return uint64(d.NumberOfLinks), nil
}
