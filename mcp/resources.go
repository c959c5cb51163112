package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/quarry-cli/quarry/kernel"
)

// Every file a session's code saved, and every export, is a resource of
// that MCP session only: resources/list is answered per session (the
// SDK's list is the server's, shared by all), resources/read through a
// template whose handler looks the name up in the calling session's list,
// so a client reads nothing the harvest or an export did not write for it.

const (
	outputPrefix = "quarry://output/"
	exportPrefix = "quarry://export/"
	// maxResourceBytes bounds one resources/read.
	maxResourceBytes = 32 << 20
)

// exported is an export_session file in the session folder.
type exported struct {
	name string // its file name in the folder
	size int64
}

func (s *Server) addResourceTemplates() {
	for _, t := range []struct{ uri, name, desc string }{
		{outputPrefix + "{+name}", "output", "a figure or file the session's code saved under /output"},
		{exportPrefix + "{name}", "export", "the session written by export_session"},
	} {
		s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: t.uri, Name: t.name, Description: t.desc}, s.readResource)
	}
}

// listResources answers resources/list with the calling session's files.
func (s *Server) listResources(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method != "resources/list" {
			return next(ctx, method, req)
		}
		res := &sdk.ListResourcesResult{Resources: []*sdk.Resource{}}
		ss, _ := req.GetSession().(*sdk.ServerSession)
		c := s.clientOf(ss)
		if c == nil {
			return res, nil
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		for _, f := range c.outputs {
			o := outputFile(f)
			res.Resources = append(res.Resources, &sdk.Resource{URI: o.URI, Name: f.Name, MIMEType: o.MIMEType, Size: f.Size})
		}
		for _, e := range c.exports {
			res.Resources = append(res.Resources, &sdk.Resource{URI: exportPrefix + url.PathEscape(e.name), Name: e.name, MIMEType: mimeOf(e.name), Size: e.size})
		}
		return res, nil
	}
}

func (s *Server) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	uri := req.Params.URI
	c := s.clientOf(req.Session)
	if c == nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	name, ok := c.resourceName(uri)
	sess := c.current()
	if !ok || sess == nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	data, err := readCapped(sess.OutputDir(), name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", uri, err)
	}
	rc := &sdk.ResourceContents{URI: uri, MIMEType: mimeOf(name)}
	if isText(rc.MIMEType) {
		rc.Text = sess.Mask(string(data))
	} else {
		rc.Blob = data
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{rc}}, nil
}

// resourceName is the session folder's file a URI names, when it is one
// of this session's outputs or exports.
func (c *client) resourceName(uri string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var names []string
	rest, ok := strings.CutPrefix(uri, outputPrefix)
	if ok {
		for _, f := range c.outputs {
			names = append(names, f.Name)
		}
	} else if rest, ok = strings.CutPrefix(uri, exportPrefix); ok {
		for _, e := range c.exports {
			names = append(names, e.name)
		}
	}
	name, err := url.PathUnescape(rest)
	return name, ok && err == nil && slices.Contains(names, name)
}

// readCapped reads name inside dir (os.Root: no way out by link or ..),
// refusing a file past maxResourceBytes.
func readCapped(dir, name string) ([]byte, error) {
	f, err := os.OpenInRoot(dir, name)
	if err != nil {
		return nil, errors.New("the file is gone from the session folder")
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > maxResourceBytes {
		return nil, fmt.Errorf("the file is %s, past the %s one read may carry: export the session or open its folder (quarry sessions names it)",
			kernel.FormatSize(st.Size()), kernel.FormatSize(maxResourceBytes))
	}
	data, err := io.ReadAll(io.LimitReader(f, maxResourceBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxResourceBytes {
		return nil, fmt.Errorf("the file grew past the %s one read may carry", kernel.FormatSize(maxResourceBytes))
	}
	return data, nil
}

// outputFile is a harvested file as results and lists name it.
func outputFile(f kernel.File) OutputFile {
	return OutputFile{Name: f.Name, URI: outputURI(f.Name), MIMEType: mimeOf(f.Name), Size: f.Size, Width: f.Width, Height: f.Height}
}

func outputURI(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return outputPrefix + strings.Join(parts, "/")
}

// fileTypes are the types of the files a session writes, whatever the
// host's MIME table says; isText tells those read back as text (and
// masked) rather than as bytes.
var fileTypes = map[string]string{
	".md": "text/markdown", ".ipynb": "application/x-ipynb+json", ".csv": "text/csv", ".tsv": "text/tab-separated-values",
	".json": "application/json", ".txt": "text/plain", ".html": "text/html", ".svg": "image/svg+xml",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", ".pdf": "application/pdf",
}

func mimeOf(name string) string {
	ext := strings.ToLower(path.Ext(name))
	if t, ok := fileTypes[ext]; ok {
		return t
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

func isText(t string) bool {
	return strings.HasPrefix(t, "text/") || strings.HasSuffix(t, "json") || t == "image/svg+xml"
}
