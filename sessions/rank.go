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

// routeFor resolves a session's route for pricing and names its estimator,
// through retention.RouteEstimator, the one owner of that choice. An empty
// route prices like Anthropic, the harness most sessions come from; an
// unknown one has no calculator and the default estimator.
func routeFor(route string) (name string, rt imagecost.Route, estimator string) {
	if route == "" {
		route = imagecost.RouteAnthropic
	}
	rt, err := imagecost.Lookup(route)
	if err != nil {
		return route, imagecost.Route{Name: route}, retention.DefaultEncoding
	}
	estimator, err = retention.RouteEstimator(rt.Name)
	if err != nil {
		estimator = retention.DefaultEncoding
	}
	return rt.Name, rt, estimator
}

// imageTokens prices a stored image as every decision prices it: through
// retention.PriceImage (the route's visual tokens plus the estimate of its
// handle text), so lists, headers, re-runs and sweeps agree. name is the
// block's name where the caller has it.
func imageTokens(rt imagecost.Route, estimator string, a Attachment, name string) (int64, bool) {
	if rt.Calc == nil || a.Width <= 0 || a.Height <= 0 {
		return 0, false
	}
	est, err := retention.LookupEstimator(estimator)
	if err != nil {
		return 0, false
	}
	p, _, err := retention.PriceImage(est, rt, retention.ImageFacts{SHA256: a.SHA256, Name: name, MediaType: a.MediaType, Width: a.Width, Height: a.Height}, nil)
	if err != nil {
		return 0, false
	}
	return int64(p.Total()), true
}

// priceContent prices a result's content as every figure of the index
// does: each text block on the estimator, each image with a stored
// attachment (imgs, by block index) through imageTokens, each other block
// at the estimator's structural price. The token phase stores its figures
// on the route's estimator; calibration counts on every estimator.
func priceContent(content []retention.Block, est retention.Estimator, rt imagecost.Route, imgs map[int]Attachment) (text, image int64) {
	for i, b := range content {
		switch b.Type {
		case retention.TypeText:
			text += int64(est.Count(b.Text))
		case retention.TypeImage:
			if dm, ok := imgs[i]; ok {
				if n, ok := imageTokens(rt, est.Name(), dm, b.Name); ok {
					image += n
				}
			}
		default:
			if len(b.Raw) > 0 {
				if n, ok := est.Structural(b.Raw); ok {
					text += int64(n)
				}
			}
		}
	}
	return text, image
}

// approxTokens is what a result ranks by until the token phase has counted
// it: text from its size, images exactly as the token phase prices them on
// the session's route.
func approxTokens(textBytes int64, images []attachRef, route string) int64 {
	n := approxTextTokens(textBytes)
	_, rt, est := routeFor(route)
	for _, a := range images {
		if t, ok := imageTokens(rt, est, a.att, ""); ok {
			n += t
		}
	}
	return n
}

// reapprox prices a session's results with images again on its new route
// (their text part does not depend on the route).
func reapprox(ctx context.Context, tx *sql.Tx, sessID int64, route string) error {
	rows, err := tx.QueryContext(ctx, `SELECT r.id, r.text_bytes, a.sha256, a.media_type, a.width, a.height FROM tool_results r
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
		if err := rows.Scan(&id, &text, &a.SHA256, &a.MediaType, &a.Width, &a.Height); err != nil {
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
