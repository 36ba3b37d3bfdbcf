package main

import (
	"errors"
	"testing"
)

func TestCheckDisplay(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want error
	}{
		{map[string]string{}, errNoDisplay},
		{map[string]string{"DISPLAY": ""}, errNoDisplay},
		{map[string]string{"DISPLAY": ":99"}, nil},
		{map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, nil},
		{map[string]string{"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-0"}, nil},
	} {
		if got := checkDisplay(func(k string) string { return tc.env[k] }); !errors.Is(got, tc.want) {
			t.Errorf("checkDisplay(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
}
