package samplegen

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"time"
)

// GooseSchema is goose's sessions.db as session_manager.rs's create_schema
// makes it (schema version 17): sessions with their running token totals,
// messages with their content as JSON, and the usage ledger.
const GooseSchema = `
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
  user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
  cache_read_tokens INTEGER, cache_write_tokens INTEGER, accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER,
  accumulated_output_tokens INTEGER, accumulated_cache_read_tokens INTEGER, accumulated_cache_write_tokens INTEGER,
  accumulated_cost REAL, schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT,
  model_config_json TEXT, goose_mode TEXT NOT NULL DEFAULT 'auto', archived_at TIMESTAMP, project_id TEXT,
  parent_session_id TEXT, parent_delegation TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, message_id TEXT, session_id TEXT NOT NULL REFERENCES sessions(id),
  role TEXT NOT NULL, content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  tokens INTEGER, metadata_json TEXT);
CREATE TABLE usage_ledger (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  created_timestamp INTEGER NOT NULL, model TEXT, input_tokens INTEGER, output_tokens INTEGER, total_tokens INTEGER,
  cache_read_tokens INTEGER, cache_write_tokens INTEGER, cost REAL, cost_source TEXT, is_compaction INTEGER DEFAULT 0);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE INDEX idx_messages_message_id ON messages(message_id);
CREATE INDEX idx_messages_session_created ON messages(session_id, created_timestamp, id);
CREATE INDEX idx_usage_ledger_session ON usage_ledger(session_id);
`

// gooseLargeResponse is goose's threshold for a text item it saves to a
// file (large_response_handler.rs): 200,000 characters.
const gooseLargeResponse = 200_000

// gooseWriter fills one goose database.
type gooseWriter struct {
	*sqlWriter
	g *gen
	r *rand.Rand
	t time.Time
	c *Counts
}

// message inserts one message as goose's insert_message does.
func (w *gooseWriter) message(sid, role string, content ...obj) {
	w.t = w.t.Add(time.Duration(1+w.r.IntN(20)) * time.Second)
	items := make([]any, len(content))
	for i, c := range content {
		items[i] = c
	}
	w.exec(`INSERT INTO messages (message_id, session_id, role, content_json, created_timestamp, timestamp, metadata_json) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		"msg_"+randFrom(w.r, alnum, 20), sid, role, string(appendJSON(nil, items)), w.t.Unix(), w.t.Format("2006-01-02 15:04:05"), `{"userVisible":true,"agentVisible":true}`)
}

// call records one model call in the usage ledger (input with the cache
// reads and writes in it, as goose records it) and in the session's usage.
func (w *gooseWriter) call(sid string, u *Usage, in, out, read, write int64, compaction bool) {
	u.add(Usage{InputTokens: in, OutputTokens: out, CacheReadInputTokens: read, CacheCreationInputTokens: write})
	w.exec(`INSERT INTO usage_ledger (session_id, created_timestamp, model, input_tokens, output_tokens, total_tokens, cache_read_tokens,
cache_write_tokens, cost, cost_source, is_compaction) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'provider_reported', ?)`,
		sid, w.t.Unix(), "claude-sonnet-4-5", in, out, in+out, read, write, 0.01, compaction)
}

func gooseRequest(id, name string, args obj) obj {
	return o("type", "toolRequest", "id", id, "toolCall", o("status", "success", "value", o("name", name, "arguments", args)))
}

func gooseResponse(id string, content ...obj) obj {
	items := make([]any, len(content))
	for i, c := range content {
		items[i] = c
	}
	return o("type", "toolResponse", "id", id, "toolResult", o("status", "success", "value", o("content", items, "isError", false)))
}

func gooseText(s string) obj { return o("type", "text", "text", s) }

// writeGooseDB writes <root>/goose/sessions/sessions.db as the current goose
// keeps it: for each scale step a session whose shell output was over
// goose's threshold and saved to <data>/mcp_responses/ (the data folder
// being goose/), a screenshot, an item meant for the user only, a failed
// call, a compaction call in the ledger, and the subagent session it
// delegated to.
func (g *gen) writeGooseDB(scale int) error {
	var c Counts
	c.Files = 1
	err := g.writeDB(filepath.Join(g.root, "goose", "sessions", "sessions.db"), GooseSchema, func(sw *sqlWriter) error {
		w := &gooseWriter{sqlWriter: sw, g: g, c: &c}
		w.exec(`INSERT INTO schema_version (version, applied_at) VALUES (17, '2026-03-01 00:00:00')`)
		for i := 0; i < scale && w.err == nil; i++ {
			w.r = g.rng(9, i)
			w.t = baseTime.Add(time.Duration(i)*24*time.Hour + 7*time.Hour)
			if err := w.session(i); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	g.m.addHarness(HarnessGoose, c)
	return nil
}

func (w *gooseWriter) session(index int) error {
	r := w.r
	day := w.t.Format("20060102")
	main, sub := fmt.Sprintf("%s_%d", day, 2*index+1), fmt.Sprintf("%s_%d", day, 2*index+2)
	dir := fmt.Sprintf("/home/dev/work/ledger-svc-%d", index)
	started := w.t
	var mu, su Usage
	sessions := []struct {
		id, name, typ string
		parent        any
		u             *Usage
	}{{main, "Fix the nightly export", "user", nil, &mu}, {sub, "List export config", "sub_agent", main, &su}}
	for _, s := range sessions {
		w.exec(`INSERT INTO sessions (id, name, session_type, working_dir, created_at, updated_at, provider_name, model_config_json, parent_session_id)
VALUES (?, ?, ?, ?, ?, ?, 'anthropic', '{"model_name":"claude-sonnet-4-5"}', ?)`, s.id, s.name, s.typ, dir, started.Format("2006-01-02 15:04:05"),
			started.Format("2006-01-02 15:04:05"), s.parent)
	}

	w.message(main, "user", gooseText("The nightly export job fails; check its log and fix it."))
	shell := "toolu_01" + randFrom(r, base58, 22)
	w.message(main, "assistant", gooseText("Let me read the export log."), gooseRequest(shell, "developer__shell", o("command", "cat /var/log/export/nightly.log")))
	w.call(main, &mu, 14_210, 96, 11_264, 1_024, false)
	full := genText(r, kindLog, gooseLargeResponse+12<<10)
	spill := filepath.Join(w.g.root, "goose", "mcp_responses", fmt.Sprintf("mcp_response_%s_%s.txt", w.t.Format("20060102_150405.000000"), randFrom(r, alnum, 8)))
	if err := w.g.writeFile(spill, []byte(full)); err != nil {
		return err
	}
	w.message(main, "user", gooseResponse(shell, gooseText(fmt.Sprintf("The response returned from the tool call was larger (%d characters) and is stored in the file: %s\nYou can use other tools to examine or search it.",
		len([]rune(full)), spill))))
	w.c.ToolResults++
	w.c.addNotice(NoticeGoose, true)

	shot, view, fail := "toolu_01"+randFrom(r, base58, 22), "toolu_01"+randFrom(r, base58, 22), "toolu_01"+randFrom(r, base58, 22)
	w.message(main, "assistant", gooseRequest(shot, "computercontroller__screenshot", o("display", 0)),
		gooseRequest(view, "developer__text_editor", o("command", "view", "path", dir+"/export/job.py")),
		gooseRequest(fail, "developer__shell", o("command", "systemctl restart export")))
	w.call(main, &mu, 18_904, 140, 14_336, 0, false)
	png, _, _, err := screenshot(r, w.g.opts.ScreenshotBytes/2)
	if err != nil {
		return err
	}
	w.message(main, "user",
		gooseResponse(shot, o("type", "image", "data", base64.StdEncoding.EncodeToString(png), "mimeType", "image/png")),
		gooseResponse(view, gooseText(genText(r, kindCode, 6<<10)), o("type", "text", "text", "Opened job.py in the editor.", "annotations", o("audience", []any{"user"}))),
		o("type", "toolResponse", "id", fail, "toolResult", o("status", "error", "error", "Execution failed: permission denied")))
	w.c.ToolResults += 3
	w.c.ToolResultImages++

	// The work goose delegated to a subagent.
	list := "toolu_01" + randFrom(r, base58, 22)
	w.message(sub, "user", gooseText("List the export job's configuration files."))
	w.message(sub, "assistant", gooseRequest(list, "developer__shell", o("command", "ls -la "+dir+"/export/conf")))
	w.call(sub, &su, 4_102, 61, 0, 2_048, false)
	w.message(sub, "user", gooseResponse(list, gooseText(genText(r, kindLog, 2<<10))))
	w.c.ToolResults++

	// goose compacted the conversation: a call of its own in the ledger.
	w.call(main, &mu, 31_220, 804, 0, 0, true)
	w.message(main, "assistant", gooseText("The job writes to /srv/export, which the service user cannot write; fixed the unit's ReadWritePaths."))
	w.call(main, &mu, 9_880, 212, 8_192, 0, false)

	for _, s := range sessions {
		u := *s.u
		w.exec(`UPDATE sessions SET updated_at = ?, accumulated_input_tokens = ?, accumulated_output_tokens = ?, accumulated_total_tokens = ?,
accumulated_cache_read_tokens = ?, accumulated_cache_write_tokens = ?, accumulated_cost = 0.05 WHERE id = ?`, w.t.Format("2006-01-02 15:04:05"),
			u.InputTokens, u.OutputTokens, u.InputTokens+u.OutputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, s.id)
		w.c.Sessions++
		w.c.Usage.add(u)
		w.g.m.SessionUsage = append(w.g.m.SessionUsage, SessionUsage{Harness: HarnessGoose, SessionID: s.id, Path: "goose/sessions/sessions.db",
			Model: "claude-sonnet-4-5", Usage: u})
	}
	return nil
}
