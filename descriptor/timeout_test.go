package descriptor

import (
	"strings"
	"testing"
	"time"
)

func TestCallTimeout(t *testing.T) {
	tests := []struct {
		name    string
		timeout string
		want    time.Duration
		wantErr string
	}{
		{name: "unset is the default", want: 100 * time.Millisecond},
		{name: "milliseconds", timeout: "250ms", want: 250 * time.Millisecond},
		{name: "seconds", timeout: "1.5s", want: 1500 * time.Millisecond},
		{name: "truncated to milliseconds", timeout: "1.9ms", want: time.Millisecond},
		{name: "largest", timeout: "4294967295ms", want: 4294967295 * time.Millisecond},
		{name: "too short", timeout: "999us", want: DefaultTimeout,
			wantErr: `timeout: invalid duration "999us": must be a Go duration ("100ms", "1.5s") of at least 1ms and at most 4294967295ms`},
		{name: "zero", timeout: "0s", want: DefaultTimeout,
			wantErr: `timeout: invalid duration "0s": must be a Go duration ("100ms", "1.5s") of at least 1ms and at most 4294967295ms`},
		{name: "too long", timeout: "4294967296ms", want: DefaultTimeout,
			wantErr: `timeout: invalid duration "4294967296ms": must be a Go duration ("100ms", "1.5s") of at least 1ms and at most 4294967295ms`},
		{name: "not a duration", timeout: "100", want: DefaultTimeout,
			wantErr: `timeout: invalid duration "100": must be a Go duration ("100ms", "1.5s") of at least 1ms and at most 4294967295ms`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Decode([]byte(`{"timeout":` + quote(tc.timeout) + `}`))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if got := cfg.CallTimeout(); got != tc.want {
				t.Errorf("CallTimeout() = %v, want %v", got, tc.want)
			}
			gotErr := ""
			if err := Validate(cfg); err != nil {
				gotErr = strings.Join(lines(t, err), "\n")
			}
			if gotErr != tc.wantErr {
				t.Errorf("Validate(timeout %q) = %q, want %q", tc.timeout, gotErr, tc.wantErr)
			}
		})
	}
}
