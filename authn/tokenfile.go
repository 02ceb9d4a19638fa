package authn

import (
	"context"
	"crypto/sha256"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// TokenFile is kube-apiserver's --token-auth-file: static bearer tokens read from CSV
// lines token,user,uid[,"group1,group2"]. Parsing is kube's, quirks included: lines are
// CSV records (quoted fields may hold commas; blank lines are skipped; there are no
// comment lines, so a line starting with # is a record like any other); a record with
// fewer than 3 columns fails the whole file; a record with an empty token is skipped
// with a warning; a token given twice warns and the later line wins; columns after
// the fourth are ignored; the fourth column is split on commas as it is, so an empty
// fourth column is the one group "". Bearer scheme parsing is kube's bearertoken
// authenticator's (see Authenticate).
//
// Tokens are kept only as their SHA-256 digests, so a heap dump does not reveal them and
// the lookup takes no time that depends on how much of a guessed token was right.
type TokenFile struct {
	users    map[[sha256.Size]byte]*User
	warnings []string
}

// ParseTokenFile reads a token file from r. Its errors and warnings name lines, never
// tokens.
func ParseTokenFile(r io.Reader) (*TokenFile, error) {
	f, err := parseTokenFile(r)
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	return f, nil
}

// LoadTokenFile reads the token file at path, as kube-apiserver reads
// --token-auth-file once at start. Its errors name the path and lines, never tokens.
func LoadTokenFile(path string) (*TokenFile, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	defer file.Close()
	f, err := parseTokenFile(file)
	if err != nil {
		return nil, fmt.Errorf("token file %q: %w", path, err)
	}
	return f, nil
}

func parseTokenFile(r io.Reader) (*TokenFile, error) {
	f := &TokenFile{users: map[[sha256.Size]byte]*User{}}
	reader := csv.NewReader(r)
	reader.FieldsPerRecord = -1
	for {
		record, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return f, nil
		}
		if err != nil {
			// csv.ParseError names the line and column and the kind of error (a bare
			// quote, say), not the text: safe to show.
			return nil, err
		}
		line, _ := reader.FieldPos(0)
		if len(record) < 3 {
			return nil, fmt.Errorf("line %d: must have at least 3 columns (token, user name, user uid), found %d", line, len(record))
		}
		if record[0] == "" {
			f.warnings = append(f.warnings, fmt.Sprintf("line %d: empty token, ignored", line))
			continue
		}
		user := &User{Name: record[1], UID: record[2]}
		if len(record) >= 4 {
			user.Groups = strings.Split(record[3], ",")
		}
		key := sha256.Sum256([]byte(record[0]))
		if _, dup := f.users[key]; dup {
			f.warnings = append(f.warnings, fmt.Sprintf("line %d: duplicate token, this line replaces the earlier one", line))
		}
		f.users[key] = user
	}
}

// Warnings are what kube-apiserver logs while reading a token file (empty and duplicate
// tokens), for the host to log; they name lines, never tokens.
func (f *TokenFile) Warnings() []string { return f.warnings }

// Authenticate implements Authenticator: a request whose Authorization header is
// "Bearer <token>" (scheme in any case) with a token of the file is its user, in group
// system:authenticated too, and loses the header; an unknown token is an error (401
// even with anonymous access on); a request without a bearer token, or with an empty
// one, is no credential (ok=false, nil error).
func (f *TokenFile) Authenticate(r *http.Request) (*User, bool, error) {
	return authenticateBearer(r, f.lookup)
}

func (f *TokenFile) lookup(_ context.Context, token string) (*User, bool, error) {
	u, ok := f.users[sha256.Sum256([]byte(token))]
	if !ok {
		return nil, false, nil
	}
	return cloneUser(u), true, nil
}
