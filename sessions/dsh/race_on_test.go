//go:build race

package dsh

const raceEnabled = true
