package app

import (
	"encoding/json"
	"errors"

	"spillscope/retention"
	"spillscope/retention/imagecost"
	"spillscope/sessions"
)

// Error is what a bound method's failure looks like to the window: a stable
// Code with its Params, which the frontend translates (en.ts/zh.ts
// errors.codes), and the Detail text of what went wrong underneath for the
// Details box and the log. The window never shows Go's sentence as the
// message, so both languages read every failure.
type Error struct {
	// Code names the failure ("session-id-invalid", "result-gone"); it is
	// stable, so a translation keyed on it keeps working.
	Code string `json:"code"`
	// Params fill the translation's placeholders ({id}, {max}).
	Params map[string]any `json:"params,omitempty"`
	// Detail is the underlying error's text (English, for the log).
	Detail string `json:"detail,omitempty"`
	err    error
}

// Error serialises e as JSON, so even a path that passes only the message
// along (a wrapped error, a log line) keeps the code and params readable.
func (e *Error) Error() string {
	b, err := json.Marshal(e)
	if err != nil {
		return e.Code
	}
	return string(b)
}

// Unwrap gives errors.Is/As the cause.
func (e *Error) Unwrap() error { return e.err }

// coded builds an Error with params given as name, value pairs.
func coded(code string, kv ...any) *Error {
	e := &Error{Code: code}
	if len(kv) > 0 {
		e.Params = make(map[string]any, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			if k, ok := kv[i].(string); ok {
				e.Params[k] = kv[i+1]
			}
		}
	}
	return e
}

// causeCodes names the domain's sentinel errors; the first that matches
// wins, so more specific sentinels come first.
var causeCodes = []struct {
	err  error
	code string
}{
	{sessions.ErrResultGone, "result-gone"},
	{sessions.ErrNotFound, "not-found"},
	{sessions.ErrDataDir, "data-dir"},
	{sessions.ErrDBInsideRoot, "db-inside-root"},
	{retention.ErrBudget, "budget-invalid"},
	{retention.ErrInput, "input-not-result"},
	{retention.ErrEncoding, "encoding-unknown"},
	{retention.ErrOptions, "options-invalid"},
	{imagecost.ErrUnknownRoute, "route-unknown"},
	{imagecost.ErrNoImagePricing, "route-unpriced"},
}

// AsError gives any error its code: an Error as it is, a known sentinel of
// sessions or retention by name, anything else as "failed". Detail always
// holds the full text.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		out := *e
		if out.Detail == "" && out.err != nil {
			out.Detail = out.err.Error()
		}
		return &out
	}
	code := "failed"
	for _, c := range causeCodes {
		if errors.Is(err, c.err) {
			code = c.code
			break
		}
	}
	return &Error{Code: code, Detail: err.Error(), err: err}
}

// FormatError is the window's ErrorFormatter: every bound method's error
// reaches the rejected promise as {code, params, detail}.
func FormatError(err error) any { return AsError(err) }

// because records the cause under e.
func (e *Error) because(err error) *Error {
	e.err = err
	if err != nil {
		e.Detail = err.Error()
	}
	return e
}
