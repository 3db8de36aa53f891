package refs_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/unstuck-dev/unstuck/refs"
)

func st(steps ...string) refs.Path { return refs.Path{Root: refs.RootState, Steps: steps} }
func in(steps ...string) refs.Path { return refs.Path{Root: refs.RootInput, Steps: steps} }

func TestParse(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    refs.Ref
		ok      bool
		wantErr bool
	}{
		{name: "plain string", in: "hello"},
		{name: "empty string", in: ""},
		{name: "dagger not first", in: "see †state.a"},
		{name: "state one step", in: "†state.a", ok: true, want: refs.Ref{Alts: []refs.Path{st("a")}}},
		{name: "input two steps", in: "†input.a.b", ok: true, want: refs.Ref{Alts: []refs.Path{in("a", "b")}}},
		{name: "array index step", in: "†state.list.0", ok: true, want: refs.Ref{Alts: []refs.Path{st("list", "0")}}},
		{name: "alternatives with spaces", in: "†state.a || †input.b", ok: true,
			want: refs.Ref{Alts: []refs.Path{st("a"), in("b")}}},
		{name: "alternatives without spaces", in: "†state.a||†input.b.c", ok: true,
			want: refs.Ref{Alts: []refs.Path{st("a"), in("b", "c")}}},
		{name: "three alternatives", in: "†state.a || †state.b || †input.c", ok: true,
			want: refs.Ref{Alts: []refs.Path{st("a"), st("b"), in("c")}}},
		{name: "dagger alone", in: "†", ok: true, wantErr: true},
		{name: "root without path", in: "†state", ok: true, wantErr: true},
		{name: "root with empty path", in: "†state.", ok: true, wantErr: true},
		{name: "misspelled root", in: "†stat.x", ok: true, wantErr: true},
		{name: "unknown root", in: "†output.x", ok: true, wantErr: true},
		{name: "empty step", in: "†state..x", ok: true, wantErr: true},
		{name: "trailing empty step", in: "†state.x.", ok: true, wantErr: true},
		{name: "dangling alternative", in: "†state.a ||", ok: true, wantErr: true},
		{name: "alternative without dagger", in: "†state.a || state.b", ok: true, wantErr: true},
		{name: "space inside", in: "†state.a b", ok: true, wantErr: true},
		{name: "single pipe", in: "†state.a|b", ok: true, wantErr: true},
		{name: "triple pipe", in: "†state.a ||| †state.b", ok: true, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref, ok, err := refs.Parse(tt.in)
			require.Equal(t, tt.ok, ok)
			if tt.wantErr {
				require.Error(t, err)
				require.Contains(t, err.Error(), "malformed reference")
				require.Empty(t, ref.Alts)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, ref)
		})
	}
}

func TestRefString(t *testing.T) {
	tests := []struct {
		ref  refs.Ref
		want string
	}{
		{refs.Ref{Alts: []refs.Path{st("a")}}, "†state.a"},
		{refs.Ref{Alts: []refs.Path{in("a", "b")}}, "†input.a.b"},
		{refs.Ref{Alts: []refs.Path{st("a"), in("b", "0")}}, "†state.a || †input.b.0"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			require.Equal(t, tt.want, tt.ref.String())
			back, ok, err := refs.Parse(tt.want)
			require.True(t, ok)
			require.NoError(t, err)
			require.Equal(t, tt.ref, back)
		})
	}
}

func TestParseOutputPath(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    refs.Path
		wantErr string
	}{
		{name: "one step", in: "†state.result", want: st("result")},
		{name: "nested", in: "†state.user.profile", want: st("user", "profile")},
		{name: "input refused", in: "†input.x", wantErr: "only State can be written"},
		{name: "alternatives refused", in: "†state.a || †state.b", wantErr: "not alternatives"},
		{name: "alternatives without spaces refused", in: "†state.a||†state.b", wantErr: "not alternatives"},
		{name: "no dagger", in: "state.a", wantErr: "_outputPath"},
		{name: "empty", in: "", wantErr: "_outputPath"},
		{name: "dagger alone", in: "†", wantErr: "_outputPath"},
		{name: "root only", in: "†state", wantErr: "_outputPath"},
		{name: "empty step", in: "†state..x", wantErr: "_outputPath"},
		{name: "misspelled root", in: "†stat.x", wantErr: "_outputPath"},
		{name: "space inside", in: "†state.a b", wantErr: "_outputPath"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := refs.ParseOutputPath(tt.in)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, p)
		})
	}
}
