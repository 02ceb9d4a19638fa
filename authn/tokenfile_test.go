package authn_test

import (
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apikit-dev/apikit/authn"
)

func TestParseTokenFile_ReadsKubesCSVFormat(t *testing.T) {
	tests := []struct {
		name         string
		file         string
		token        string
		wantUser     *authn.User // nil: the token is not in the file
		wantWarnings []string
	}{
		{
			name:     "three columns are token, user name and uid",
			file:     "secret1,alice,uid-1\n",
			token:    "secret1",
			wantUser: &authn.User{Name: "alice", UID: "uid-1", Groups: []string{"system:authenticated"}},
		},
		{
			name:     "a quoted fourth column holds comma-separated groups",
			file:     "secret1,alice,uid-1,\"dev,ops\"\n",
			token:    "secret1",
			wantUser: &authn.User{Name: "alice", UID: "uid-1", Groups: []string{"dev", "ops", "system:authenticated"}},
		},
		{
			name:     "columns after the fourth are ignored",
			file:     "secret1,alice,uid-1,dev,other,data\n",
			token:    "secret1",
			wantUser: &authn.User{Name: "alice", UID: "uid-1", Groups: []string{"dev", "system:authenticated"}},
		},
		{
			name:     "an empty fourth column is the group \"\" as in kube",
			file:     "secret1,alice,uid-1,\n",
			token:    "secret1",
			wantUser: &authn.User{Name: "alice", UID: "uid-1", Groups: []string{"", "system:authenticated"}},
		},
		{
			name:     "blank lines are skipped",
			file:     "\n\nsecret1,alice,uid-1\n\n",
			token:    "secret1",
			wantUser: &authn.User{Name: "alice", UID: "uid-1", Groups: []string{"system:authenticated"}},
		},
		{
			name:     "a line starting with # is a record, not a comment, as in kube",
			file:     "#secret1,alice,uid-1\n",
			token:    "#secret1",
			wantUser: &authn.User{Name: "alice", UID: "uid-1", Groups: []string{"system:authenticated"}},
		},
		{
			name:     "a user in system:authenticated already is not put in it twice",
			file:     "secret1,alice,uid-1,system:authenticated\n",
			token:    "secret1",
			wantUser: &authn.User{Name: "alice", UID: "uid-1", Groups: []string{"system:authenticated"}},
		},
		{
			name:         "a duplicate token warns and the later line wins",
			file:         "secret1,alice,uid-1\nsecret1,bob,uid-2\n",
			token:        "secret1",
			wantUser:     &authn.User{Name: "bob", UID: "uid-2", Groups: []string{"system:authenticated"}},
			wantWarnings: []string{"line 2: duplicate token, this line replaces the earlier one"},
		},
		{
			name:         "an empty token warns and is skipped",
			file:         ",nobody,uid-0\nsecret1,alice,uid-1\n",
			token:        "",
			wantWarnings: []string{"line 1: empty token, ignored"},
		},
		{
			name:  "an unknown token is nobody",
			file:  "secret1,alice,uid-1\n",
			token: "secret2",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := authn.ParseTokenFile(strings.NewReader(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(f.Warnings(), tt.wantWarnings) {
				t.Errorf("warnings %q, want %q", f.Warnings(), tt.wantWarnings)
			}
			if tt.token == "" {
				return
			}
			wantErr := ""
			if tt.wantUser == nil {
				wantErr = "invalid bearer token"
			}
			checkOutcome(t, authenticate(f, "Bearer "+tt.token), tt.wantUser, wantErr)
		})
	}
}

func TestParseTokenFile_ErrorsNameTheLineNeverTheToken(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		wantErr string
	}{
		{"too few columns", "secret1,alice,uid-1\n\nsecret2,bob\n", "line 3: must have at least 3 columns (token, user name, user uid), found 2"},
		{"a comment line has too few columns", "# secret1 is alice's\nsecret1,alice,uid-1\n", "line 1: must have at least 3 columns"},
		{"a bare quote", "secret1,alice,uid-1\nsec\"ret2,bob,uid-2\n", "parse error on line 2, column 4: bare \" in non-quoted-field"},
		{"an unterminated quote", "secret1,alice,uid-1\n\"secret2,bob,uid-2\n", "extraneous or missing \" in quoted-field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := authn.ParseTokenFile(strings.NewReader(tt.file))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q shows a token", err)
			}
		})
	}
}

func TestLoadTokenFile_ReadsAFileAndNamesItInErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "tokens.csv")
	bad := filepath.Join(dir, "bad.csv")
	for path, data := range map[string]string{good: "secret1,alice,uid-1\n", bad: "secret1,alice\n"} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f, err := authn.LoadTokenFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if got := authenticate(f, "Bearer secret1"); !got.ok || got.user.Name != "alice" {
		t.Errorf("secret1: ok=%v user=%+v err=%v, want alice", got.ok, got.user, got.err)
	}
	if _, err := authn.LoadTokenFile(bad); err == nil || !strings.Contains(err.Error(), bad) || strings.Contains(err.Error(), "secret1") {
		t.Errorf("bad file: error %v, want one naming the file and not the token", err)
	}
	if _, err := authn.LoadTokenFile(filepath.Join(dir, "missing.csv")); err == nil {
		t.Error("missing file: no error")
	}
}

func TestTokenFile_ReadsTheBearerSchemeAsKubeDoes(t *testing.T) {
	f, err := authn.ParseTokenFile(strings.NewReader("secret1,alice,uid-1\n"))
	if err != nil {
		t.Fatal(err)
	}
	alice := &authn.User{Name: "alice", UID: "uid-1", Groups: []string{"system:authenticated"}}
	tests := []struct {
		name          string
		authorization []string // header values; nil: no header
		wantUser      *authn.User
		wantErr       string
	}{
		{name: "Bearer and the token", authorization: []string{"Bearer secret1"}, wantUser: alice},
		{name: "the scheme in any case", authorization: []string{"bEaReR secret1"}, wantUser: alice},
		{name: "spaces around the header value are trimmed", authorization: []string{"  Bearer secret1  "}, wantUser: alice},
		{name: "words after the token are ignored", authorization: []string{"Bearer secret1 trailing words"}, wantUser: alice},
		{name: "an unknown token is an error", authorization: []string{"Bearer secret2"}, wantErr: "invalid bearer token"},
		{name: "two spaces make the token empty: no credential", authorization: []string{"Bearer  secret1"}},
		{name: "the scheme alone is no credential", authorization: []string{"Bearer"}},
		{name: "another scheme is no credential", authorization: []string{"Basic c2VjcmV0MQ=="}},
		{name: "no header is no credential"},
		{name: "only the first header value counts", authorization: []string{"Basic x", "Bearer secret1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := http.NewRequest(http.MethodGet, "/", nil)
			r.Header["Authorization"] = tt.authorization
			got, ok, err := f.Authenticate(r)
			checkOutcome(t, outcome{user: got, ok: ok, err: err}, tt.wantUser, tt.wantErr)
			if ok && r.Header.Get("Authorization") != "" {
				t.Error("the Authorization header is still there after the token authenticated")
			}
			if !ok && !slices.Equal(r.Header["Authorization"], tt.authorization) {
				t.Errorf("Authorization %q, want it untouched", r.Header["Authorization"])
			}
		})
	}
}

func TestTokenFile_CallersCannotChangeTheFilesUsers(t *testing.T) {
	f, err := authn.ParseTokenFile(strings.NewReader("secret1,alice,uid-1,dev\n"))
	if err != nil {
		t.Fatal(err)
	}
	first := authenticate(f, "Bearer secret1").user
	first.Groups[0] = "system:masters"
	if got := authenticate(f, "Bearer secret1").user; got.Groups[0] != "dev" {
		t.Errorf("groups %q after a caller changed its copy, want dev first", got.Groups)
	}
}

// authenticate runs a on a plain request with the Authorization header given.
func authenticate(a authn.Authenticator, authorization string) outcome {
	r, _ := http.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Authorization", authorization)
	user, ok, err := a.Authenticate(r)
	return outcome{user: user, ok: ok, err: err, header: r.Header}
}
