// Package openaitest is a fake OpenAI-compatible chat server for tests. It
// speaks the real wire format (text/event-stream chunks sharing one id, a
// first delta {"role":"assistant","content":""}, tool-call fragments split at
// awkward byte positions, finish_reason, a usage chunk with "choices":[],
// "data: [DONE]", ": ping" comments, JSON error bodies, 429 with
// Retry-After, connections closed mid-stream) so that go-openai and quarry
// are exercised exactly as against a real server.
//
// Use:
//
//	srv := openaitest.New(t,
//		openaitest.ToolCalls("import pandas as pd\nprint(pd.read_csv('/data/a.csv').shape)"),
//		openaitest.Text("The file has **3 rows**."),
//	)
//	// point the client (or the real quarry binary, via OPENAI_BASE_URL) at srv.URL
//	reqs := srv.ChatRequests() // what the client sent, parsed
//
// Replies are used in order, one per chat request; when the queue is empty
// the function given to Handle answers (it can read the conversation, e.g.
// req.LastToolResult(), to build an answer from numbers computed in the
// sandbox); with neither, the server answers 400 "no scripted reply left".
// Start is New for code without a testing.TB (call Close). Recorded
// streams of real servers are replayed with LoadRecording, Stream.AsCall,
// Stream.AsAnswer, Frame and Writes (replay.go, rewrite.go, frame.go). The
// server also
// answers non-streaming requests and GET /v1/models. It listens on loopback
// only and must not import other quarry packages.
package openaitest
