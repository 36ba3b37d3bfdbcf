package app

import (
	"context"
	"slices"

	"spillscope/retention/links"
	"spillscope/sessions"
)

// linkFilter reads a LinkQuery into the index's filter, refusing a family
// or class the audit does not know.
func linkFilter(q LinkQuery) (sessions.LinkFilter, error) {
	f := sessions.LinkFilter{OnlyFlagged: q.OnlyHidden, SessionRowID: q.SessionID, Reason: q.Reason, Host: q.Host,
		Class: q.Class, Limit: q.Limit, Offset: q.Offset}
	if q.Family != "" {
		if !slices.Contains(links.FamilyKeys(), q.Family) {
			return f, coded("link-family-unknown", "family", q.Family)
		}
		f.Parameters = links.FamilyParams(q.Family)
	}
	switch q.Class {
	case "", sessions.ClassPlain, sessions.ClassRedacted, sessions.ClassStubbed, sessions.ClassMarker:
	default:
		return f, coded("link-class-unknown", "class", q.Class)
	}
	if q.SessionID < 0 {
		return f, coded("session-id-invalid", "id", q.SessionID)
	}
	return f, nil
}

// List returns one page of the links of indexed tool results, flagged ones
// first, filtered as q says, with the filtered list's counts. Rows carry
// how each link was shown and why, and its redacted URI, computed from the
// source for the rows asked for: the index holds no URI.
func (l *Links) List(q LinkQuery) (LinkPage, error) {
	if err := checkPage(q.Offset, q.Limit); err != nil {
		return LinkPage{}, err
	}
	f, err := linkFilter(q)
	if err != nil {
		return LinkPage{}, err
	}
	db, err := l.store.DB()
	if err != nil {
		return LinkPage{}, err
	}
	ctx := context.Background()
	rows, err := db.BrowseLinks(ctx, f)
	if err != nil {
		return LinkPage{}, err
	}
	c, err := db.CountLinks(ctx, f)
	if err != nil {
		return LinkPage{}, err
	}
	out := make([]LinkRow, 0, len(rows))
	uris := linkURIs(ctx, db, rows)
	for i, r := range rows {
		row := LinkRow{
			ResultID: r.ResultID, SessionID: r.SessionID, Block: r.Block, Shown: r.Shown, Reason: r.Reason,
			Parameter: r.Parameter, Tool: r.Tool, Project: r.Project, File: r.File, Line1: r.Line,
			URI: uris[i].uri, Start: uris[i].start, End: uris[i].end,
			Class: sessions.LinkClass(r.Shown, r.Reason), Host: r.Host, Families: links.FamiliesOf(r.Parameter),
		}
		if row.Families == nil {
			row.Families = []string{}
		}
		switch r.Shown {
		case links.KindLink:
			row.Shown = "line"
		case sessions.LinkInText:
			row.InText = r.Reason != ""
		}
		out = append(out, row)
	}
	return LinkPage{Rows: out, Total: c.Total, Hidden: c.Hidden, InText: c.InText,
		Plain: c.Plain, Redacted: c.Redacted, Stubbed: c.Stubbed, Markers: c.Markers}, nil
}

// Facets lists the values the links filters offer (reasons, credential
// families, the hosts most linked to) with their counts, over one session
// (a sessions row id) or, for 0, every link.
func (l *Links) Facets(sessionID int64) (LinkFacets, error) {
	if sessionID < 0 {
		return LinkFacets{}, coded("session-id-invalid", "id", sessionID)
	}
	db, err := l.store.DB()
	if err != nil {
		return LinkFacets{}, err
	}
	fc, err := db.LinkFacets(context.Background(), sessionID)
	if err != nil {
		return LinkFacets{}, err
	}
	out := LinkFacets{Reasons: facetCounts(fc.Reasons), Hosts: facetCounts(fc.Hosts), Families: []FacetCount{}}
	byFamily := map[string]int{}
	for _, p := range fc.Parameters {
		for _, k := range links.FamiliesOf(p.Value) {
			byFamily[k] += p.Count
		}
	}
	for _, k := range links.FamilyKeys() {
		if n := byFamily[k]; n > 0 {
			out.Families = append(out.Families, FacetCount{Value: k, Count: n})
		}
	}
	return out, nil
}

func facetCounts(in []sessions.Facet) []FacetCount {
	out := make([]FacetCount, 0, len(in))
	for _, f := range in {
		out = append(out, FacetCount{Value: f.Value, Count: f.Count})
	}
	return out
}
