// Package links decides what a tool result's blocks and links show the model,
// and finds URLs that may carry a credential in text.
//
// It holds the one classification every view and the indexer use (Classify):
// each block of a content array is shown as itself, as a link's own line, as
// a stub without the URI saying why, or as a marker saying what the block was
// and why it is not shown. It holds the one credential test for a URI
// (CheckURI), with the one credential parameter list (Families), and the
// scanner that applies the same test to URLs inside text (ScanText, Redact).
//
// Known limits, said plainly so no view pretends otherwise:
//   - A credential carried in a path (a Discord webhook's
//     /api/webhooks/<id>/<token>, a Telegram bot's /bot<token>/) is not
//     caught; only userinfo and named parameters are read.
//   - A credential under a name that is not on the list is not caught.
//     Names are compared after normalisation, so spelling variants of a
//     listed name are caught, but a provider's own name must be listed.
//   - A parameter without a value never counts, so a bare "#token" anchor
//     shows; a credential is always a value.
//   - The text scanner finds URLs with a scheme followed by "://" (also
//     JSON-escaped as ":\/\/") and "www." hosts; a URL without either, or a
//     scheme separator escaped twice (":\\/\\/"), is not found.
//
// Nothing here returns, logs or formats a parameter's value: a Decision, a
// View and a Found carry the list's spelling of a matched name and a reason
// code only.
package links

import "errors"

// ErrNotArray reports data that should have been a JSON array.
var ErrNotArray = errors.New("links: not a JSON array")
