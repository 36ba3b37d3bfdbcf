package readkit

import "errors"

// callbackError marks an error a reader's callback returned, so a pass can
// tell the consumer's own failure (returned as is) from a fault in the
// input (which becomes a diagnostic and does not stop the pass).
type callbackError struct{ err error }

func (c callbackError) Error() string { return c.err.Error() }
func (c callbackError) Unwrap() error { return c.err }

// Wrap returns f with its errors marked as a callback's; nil stays nil.
func Wrap[T any](f func(T) error) func(T) error {
	if f == nil {
		return nil
	}
	return func(v T) error {
		if err := f(v); err != nil {
			return callbackError{err}
		}
		return nil
	}
}

// IsCallback reports whether err came from a callback wrapped by Wrap.
func IsCallback(err error) bool {
	var c callbackError
	return errors.As(err, &c)
}

// Unwrap returns a callback's error as the callback returned it, and any
// other error unchanged.
func Unwrap(err error) error {
	var c callbackError
	if errors.As(err, &c) {
		return c.err
	}
	return err
}
