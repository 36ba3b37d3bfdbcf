package sessions

import (
	"context"
	"database/sql"
	"fmt"

	"spillscope/retention"
	"spillscope/retention/imagecost"
)

// Ranking results by tokens. The structure pass cannot afford a tokenizer
// (it runs at hundreds of MB/s; tiktoken counts tens), so it stores an
// approximation; the token phase later stores the exact count and every
// ranking (the column rank_tokens) switches to it.

// approxBytesNum/approxBytesDen is the ratio the approximation divides text
// bytes by (7/2 = 3.5 bytes per token). Measured on the real fixtures
// in ../shared/fixtures/real with o200k_base: Claude Code tool results
// average 3.32 bytes per token, Codex 3.70, Gemini CLI 4.38 (code, logs and
// JSON tokenize denser than prose).
const (
	approxBytesNum = 7
	approxBytesDen = 2
)

// approxTextTokens estimates a text's token count from its size alone,
// rounding up so that non-empty text never ranks as free.
func approxTextTokens(textBytes int64) int64 {
	if textBytes <= 0 {
		return 0
	}
	return (textBytes*approxBytesDen + approxBytesNum - 1) / approxBytesNum
}

// routeFor resolves a session's route for pricing: its calculator (nil for
// a route without one, such as deepseek) and its text encoding. An empty
// route prices like Anthropic, the harness most sessions come from; an
// unknown one has no calculator and the default encoding.
func routeFor(route string) (name string, calc imagecost.Calculator, encoding string) {
	if route == "" {
		route = imagecost.RouteAnthropic
	}
	rt, err := imagecost.Lookup(route)
	if err != nil {
		return route, nil, retention.DefaultEncoding
	}
	encoding = rt.Encoding
	if encoding == "" {
		encoding = retention.DefaultEncoding
	}
	return route, rt.Calc, encoding
}

// approxTokens is what a result ranks by until the token phase has counted
// it: text from its size, images exactly from their stored dimensions on
// the session's route.
func approxTokens(textBytes int64, images []attachRef, route string) int64 {
	n := approxTextTokens(textBytes)
	_, calc, _ := routeFor(route)
	if calc == nil {
		return n
	}
	for _, a := range images {
		if t, err := calc(a.att.Width, a.att.Height); err == nil {
			n += int64(t)
		}
	}
	return n
}

// reapprox prices a session's results with images again on its new route
// (their text part does not depend on the route).
func reapprox(ctx context.Context, tx *sql.Tx, sessID int64, route string) error {
	rows, err := tx.QueryContext(ctx, `SELECT r.id, r.text_bytes, a.width, a.height FROM tool_results r
JOIN result_attachments ra ON ra.result_id = r.id JOIN attachments a ON a.sha256 = ra.sha256
WHERE r.session_id = ? ORDER BY r.id`, sessID)
	if err != nil {
		return fmt.Errorf("reprice images: %w", err)
	}
	type acc struct {
		text int64
		imgs []attachRef
	}
	var order []int64
	by := map[int64]*acc{}
	for rows.Next() {
		var id, text int64
		var a Attachment
		if err := rows.Scan(&id, &text, &a.Width, &a.Height); err != nil {
			rows.Close()
			return fmt.Errorf("reprice images: %w", err)
		}
		if by[id] == nil {
			by[id] = &acc{text: text}
			order = append(order, id)
		}
		by[id].imgs = append(by[id].imgs, attachRef{att: a})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reprice images: %w", err)
	}
	for _, id := range order {
		a := by[id]
		if _, err := tx.ExecContext(ctx, `UPDATE tool_results SET approx_tokens = ? WHERE id = ?`, approxTokens(a.text, a.imgs, route), id); err != nil {
			return fmt.Errorf("reprice images: %w", err)
		}
	}
	return nil
}
