package sessions

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"spillscope/retention/links"
)

// The links audit's read side: every link of every indexed result, filtered
// and counted in SQL so a page and its counts always describe one list.

// LinkInText is the shown value of a URL found inside a text block.
const LinkInText = "text"

// Audit classes: how a link reached the screen, as the audit counts them.
// LinkClass and linkClassSQL are the one definition.
const (
	// ClassPlain: a URL shown as written (a safe URL in text, or a
	// resource_link's own line).
	ClassPlain = "plain"
	// ClassRedacted: a credential-bearing URL inside text. It reached the
	// model as written; every view masks its values.
	ClassRedacted = "redacted"
	// ClassStubbed: a resource_link shown as a stub, without its URI.
	ClassStubbed = "stubbed"
	// ClassMarker: a block that is not shown (audio, an image without data,
	// an unknown type); no URL.
	ClassMarker = "marker"
)

// LinkClass is the audit class of a link row (see the Class constants).
func LinkClass(shown, reason string) string {
	switch {
	case shown == LinkInText && reason != "":
		return ClassRedacted
	case shown == LinkInText, shown == links.KindLink:
		return ClassPlain
	case shown == links.KindStub:
		return ClassStubbed
	}
	return ClassMarker
}

// linkClassSQL is LinkClass in SQL, over the links table as l (a test holds
// the two together).
const linkClassSQL = `(CASE WHEN l.shown = 'text' AND l.reason <> '' THEN 'redacted'
  WHEN l.shown IN ('text', 'link') THEN 'plain' WHEN l.shown = 'stub' THEN 'stubbed' ELSE 'marker' END)`

// LinkSummary is one link of an indexed result. It never holds a URI.
type LinkSummary struct {
	ResultID  int64
	SessionID int64
	Block     int
	Shown     string
	Reason    string
	Parameter string
	// Host is the link's host (links.URIHost), "" for a marker.
	Host    string
	Tool    string
	Project string
	File    string
	Line    int64
	// Ordinal is the link's place among the links of its block (the k-th URL
	// links.FindURLs finds in a text block), so a view can find it again in
	// the source.
	Ordinal int
}

// LinkFilter narrows the links list; the zero filter lists every link.
type LinkFilter struct {
	// OnlyFlagged keeps the links a rule flagged (with a reason).
	OnlyFlagged bool
	// SessionRowID keeps one transcript's links (0: all).
	SessionRowID int64
	// Reason keeps the links with this reason code.
	Reason string
	// Parameters keeps the links whose matched parameter is one of these
	// names (a family's: links.FamilyParams); nil keeps every link, an
	// empty list none.
	Parameters []string
	// Host keeps the links to this host or under it (example.com keeps
	// cdn.example.com), compared in lower case.
	Host string
	// Class keeps one audit class (the Class constants).
	Class string
	// Limit (1..10000; 0 or more: 1000) and Offset select the page.
	Limit  int
	Offset int
}

// linkWhere is the filter every links query shares; its numbered
// parameters are linkArgs'.
const linkWhere = `
WHERE (?1 = 0 OR l.reason <> '') AND (?2 = 0 OR r.session_id = ?2) AND (?3 = '' OR l.reason = ?3)
  AND (?4 IS NULL OR l.parameter IN (SELECT value FROM json_each(?4)))
  AND (?5 = '' OR l.host = ?5 OR l.host LIKE ?6 ESCAPE '\')
  AND (?7 = '' OR ` + linkClassSQL + ` = ?7)`

func linkArgs(f LinkFilter) []any {
	var params any
	if f.Parameters != nil {
		b, _ := json.Marshal(f.Parameters)
		params = string(b)
	}
	host := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(f.Host)), ".")
	return []any{f.OnlyFlagged, f.SessionRowID, f.Reason, params, host, "%." + likeEscaper.Replace(host), f.Class}
}

const linkFrom = `
FROM links l JOIN tool_results r ON r.id = l.result_id JOIN sessions s ON s.id = r.session_id`

// LinkCounts is how many links the links list holds, by audit class.
type LinkCounts struct {
	// Total is the number of rows.
	Total int
	// Hidden reached the model as a stub or marker, without their URI.
	Hidden int
	// InText are credential-bearing URLs found inside text blocks (the
	// redacted class).
	InText   int
	Plain    int
	Redacted int
	Stubbed  int
	Markers  int
}

// CountLinks counts the whole list BrowseLinks pages through.
func (d *DB) CountLinks(ctx context.Context, f LinkFilter) (LinkCounts, error) {
	var c LinkCounts
	err := d.db.QueryRowContext(ctx, `SELECT COUNT(*),
  COALESCE(SUM(c = 'plain'), 0), COALESCE(SUM(c = 'redacted'), 0), COALESCE(SUM(c = 'stubbed'), 0), COALESCE(SUM(c = 'marker'), 0)
FROM (SELECT `+linkClassSQL+` AS c`+linkFrom+linkWhere+`)`, linkArgs(f)...).
		Scan(&c.Total, &c.Plain, &c.Redacted, &c.Stubbed, &c.Markers)
	if err != nil {
		return c, fmt.Errorf("sessions: count links: %w", err)
	}
	c.Hidden, c.InText = c.Stubbed+c.Markers, c.Redacted
	return c, nil
}

// BrowseLinks lists one page of links, flagged ones first.
func (d *DB) BrowseLinks(ctx context.Context, f LinkFilter) ([]LinkSummary, error) {
	limit := f.Limit
	if limit <= 0 || limit > 10000 {
		limit = 1000
	}
	args := append(linkArgs(f), limit, max(f.Offset, 0))
	rows, err := d.db.QueryContext(ctx, `SELECT l.result_id, r.session_id, l.block_index, l.shown, l.reason, l.parameter, l.host,
	r.tool_name, s.project, f.path, r.src_line, l.ordinal`+linkFrom+` JOIN files f ON f.id = r.file_id`+linkWhere+`
ORDER BY (l.reason = ''), l.result_id, l.block_index, l.id LIMIT ?8 OFFSET ?9`, args...)
	if err != nil {
		return nil, fmt.Errorf("sessions: list links: %w", err)
	}
	defer rows.Close()
	var out []LinkSummary
	for rows.Next() {
		var l LinkSummary
		if err := rows.Scan(&l.ResultID, &l.SessionID, &l.Block, &l.Shown, &l.Reason, &l.Parameter, &l.Host,
			&l.Tool, &l.Project, &l.File, &l.Line, &l.Ordinal); err != nil {
			return nil, fmt.Errorf("sessions: list links: %w", err)
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

// Facet is one value of a links column and how many links carry it.
type Facet struct {
	Value string
	Count int
}

// LinkFacets are the values the audit's filters offer, counted over one
// transcript's links (or every link): reason codes, matched parameter names
// (a view groups them into families) and the hosts most linked to.
type LinkFacets struct {
	Reasons    []Facet
	Parameters []Facet
	Hosts      []Facet
}

// maxHostFacets bounds the hosts offered; the filter takes any host typed.
const maxHostFacets = 200

// Facets counts the values the links filters offer.
func (d *DB) LinkFacets(ctx context.Context, sessionRowID int64) (LinkFacets, error) {
	var out LinkFacets
	for _, q := range []struct {
		col  string
		dest *[]Facet
	}{{"l.reason", &out.Reasons}, {"l.parameter", &out.Parameters}, {"l.host", &out.Hosts}} {
		rows, err := d.db.QueryContext(ctx, `SELECT `+q.col+`, COUNT(*) AS n`+linkFrom+`
WHERE (?1 = 0 OR r.session_id = ?1) AND `+q.col+` <> '' GROUP BY `+q.col+` ORDER BY n DESC, `+q.col+` LIMIT ?2`, sessionRowID, maxHostFacets)
		if err != nil {
			return out, fmt.Errorf("sessions: link facets: %w", err)
		}
		for rows.Next() {
			var f Facet
			if err := rows.Scan(&f.Value, &f.Count); err != nil {
				rows.Close()
				return out, fmt.Errorf("sessions: link facets: %w", err)
			}
			*q.dest = append(*q.dest, f)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return out, fmt.Errorf("sessions: link facets: %w", err)
		}
	}
	return out, nil
}
