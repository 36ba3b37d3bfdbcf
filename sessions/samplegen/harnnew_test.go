package samplegen

import (
	"database/sql"
	"encoding/json"
	"net/url"
	"os"
	"strings"
	"testing"
)

// The recounts of the database and OpenCode, Copilot CLI and goose files,
// with database/sql and encoding/json only: what the generator wrote, read
// back without the indexer's readers.

// usageKey names one session's usage: its file, and for harnesses whose
// file can hold many sessions (or is named after its own), the session.
func usageKey(harness, path, session string) string {
	switch harness {
	case HarnessOpenCode, HarnessCopilot, HarnessGoose:
		return path + "#" + session
	}
	return path
}

// openDB opens a generated database without writing beside it.
func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// recountOpenCodeParts counts parts (JSON) of one session: finished tool
// parts are results, step-finish parts carry one call's usage.
func recountOpenCodeParts(c *Counts, u *Usage, data string) {
	var p struct {
		Type   string `json:"type"`
		Tokens *struct {
			Input, Output, Reasoning int64
			Cache                    struct{ Read, Write int64 }
		} `json:"tokens"`
		State struct {
			Status      string `json:"status"`
			Output      string `json:"output"`
			Attachments []struct {
				Mime, URL string
			} `json:"attachments"`
		} `json:"state"`
	}
	json.Unmarshal([]byte(data), &p)
	switch {
	case p.Type == "step-finish" && p.Tokens != nil:
		u.add(Usage{InputTokens: p.Tokens.Input, OutputTokens: p.Tokens.Output, ReasoningOutputTokens: p.Tokens.Reasoning,
			CacheReadInputTokens: p.Tokens.Cache.Read, CacheCreationInputTokens: p.Tokens.Cache.Write})
	case p.Type == "tool" && (p.State.Status == "completed" || p.State.Status == "error"):
		c.ToolResults++
		countNotice(c, p.State.Output)
		for _, a := range p.State.Attachments {
			if _, data, ok := strings.Cut(a.URL, ";base64,"); ok && validPNGBase64(data) {
				c.ToolResultImages++
			}
		}
	}
}

func recountOpenCodeDB(t *testing.T, path string, c *Counts, usage map[string]Usage, rel string) {
	db := openDB(t, path)
	c.Files++
	rows, err := db.Query(`SELECT s.id, p.data FROM session s LEFT JOIN part p ON p.session_id = s.id ORDER BY s.id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	per := map[string]*Usage{}
	for rows.Next() {
		var sid string
		var data sql.NullString
		if err := rows.Scan(&sid, &data); err != nil {
			t.Fatal(err)
		}
		if per[sid] == nil {
			per[sid] = &Usage{}
			c.Sessions++
		}
		recountOpenCodeParts(c, per[sid], data.String)
	}
	for sid, u := range per {
		c.Usage.add(*u)
		usage[usageKey(HarnessOpenCode, rel, sid)] = *u
	}
}

func recountOpenCodeExport(t *testing.T, path string, c *Counts, usage map[string]Usage, rel string) {
	var doc struct {
		Info struct {
			ID string `json:"id"`
		} `json:"info"`
		Messages []struct {
			Parts []json.RawMessage `json:"parts"`
		} `json:"messages"`
	}
	readJSON(t, path, &doc)
	c.Files++
	c.Sessions++
	var u Usage
	for _, m := range doc.Messages {
		for _, p := range m.Parts {
			recountOpenCodeParts(c, &u, string(p))
		}
	}
	c.Usage.add(u)
	usage[usageKey(HarnessOpenCode, rel, doc.Info.ID)] = u
}

func recountCopilot(t *testing.T, path string, c *Counts, usage map[string]Usage, rel string) {
	c.Files++
	c.Sessions++
	var sid string
	var u Usage
	readLines(t, path, func(line []byte) {
		var e struct {
			Type string         `json:"type"`
			Data map[string]any `json:"data"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			t.Errorf("%s: %v", rel, err)
			return
		}
		switch e.Type {
		case "session.start":
			sid = asString(e.Data["sessionId"])
		case "assistant.message":
			u.OutputTokens += asInt(e.Data["outputTokens"])
		case "tool.execution_complete":
			c.ToolResults++
			res := asMap(e.Data["result"])
			countNotice(c, asString(res["content"]))
			bins, _ := res["binaryResultsForLlm"].([]any)
			for _, b := range bins {
				if validPNGBase64(asString(asMap(b)["data"])) {
					c.ToolResultImages++
				}
			}
		case "session.shutdown":
			for _, m := range asMap(e.Data["modelMetrics"]) {
				mu := asMap(asMap(m)["usage"])
				u.InputTokens += asInt(mu["inputTokens"])
				u.CacheReadInputTokens += asInt(mu["cacheReadTokens"])
				u.CacheCreationInputTokens += asInt(mu["cacheWriteTokens"])
				u.ReasoningOutputTokens += asInt(mu["reasoningTokens"])
			}
		}
	})
	c.Usage.add(u)
	usage[usageKey(HarnessCopilot, rel, sid)] = u
}

func recountGoose(t *testing.T, path string, c *Counts, usage map[string]Usage, rel string) {
	db := openDB(t, path)
	c.Files++
	per := map[string]*Usage{}
	rows, err := db.Query(`SELECT id FROM sessions`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		per[id] = &Usage{}
		c.Sessions++
	}
	rows.Close()
	rows, err = db.Query(`SELECT content_json FROM messages`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var content string
		rows.Scan(&content)
		var items []map[string]any
		if err := json.Unmarshal([]byte(content), &items); err != nil {
			t.Errorf("%s: %v", rel, err)
		}
		for _, it := range items {
			if it["type"] != "toolResponse" {
				continue
			}
			c.ToolResults++
			inner, _ := asMap(asMap(it["toolResult"])["value"])["content"].([]any)
			for _, x := range inner {
				xm := asMap(x)
				switch xm["type"] {
				case "text":
					countNotice(c, asString(xm["text"]))
				case "image":
					if validPNGBase64(asString(xm["data"])) {
						c.ToolResultImages++
					}
				}
			}
		}
	}
	rows.Close()
	rows, err = db.Query(`SELECT session_id, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens FROM usage_ledger`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var sid string
		var x Usage
		rows.Scan(&sid, &x.InputTokens, &x.OutputTokens, &x.CacheReadInputTokens, &x.CacheCreationInputTokens)
		per[sid].add(x)
	}
	for sid, u := range per {
		c.Usage.add(*u)
		usage[usageKey(HarnessGoose, rel, sid)] = *u
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
