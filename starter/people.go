package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/unstuck-dev/unstuck/approvals/sign"
	"github.com/unstuck-dev/unstuck/config"
)

func newPeopleCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "people",
		Short: "Keys of the people who answer approvals",
		Long: `people makes the keys that sign approvals of tools whose approval names
by: groups (docs/approvals-and-edits.md):
  people keygen  writes a private key file and prints its people.keys line`,
		Example: `  unstuck people keygen --name ana --out ~/.unstuck/ana.key`,
		Args:    noArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newKeygenCmd())
	return cmd
}

func newKeygenCmd() *cobra.Command {
	var name, out string
	cmd := &cobra.Command{
		Use:   "keygen --name NAME --out FILE",
		Short: "Write a private key file (0600) and print the people.keys line of its public key",
		Long: `keygen makes an Ed25519 key pair for NAME (a person of people.groups, or
"console" for the console's key). The private key goes to FILE, readable by
you alone (PKCS#8 PEM, as openssl genpkey -algorithm ed25519 writes it); an
existing FILE is never overwritten. Add the printed line under people.keys of
the worker's config; keep FILE to yourself: unstuck approve --as NAME --key
FILE signs with it.`,
		Example: `  unstuck people keygen --name ana --out ~/.unstuck/ana.key`,
		Args:    noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case name == "":
				return usageErrorf("--name is required: the person (or console) the key proves")
			case out == "":
				return usageErrorf("--out is required: the private key file to write")
			}
			line, err := keygen(name, out)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (0600); add under people.keys:\n", out)
			fmt.Fprintln(cmd.OutOrStdout(), line)
			return nil
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "whose key: a person of people.groups, or console")
	cmd.Flags().StringVar(&out, "out", "", "the private key file to write (never overwritten)")
	return cmd
}

// keygen writes a new private key for name to path and answers its
// people.keys line.
func keygen(name, path string) (string, error) {
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", err
	}
	if err := sign.ValidSigner(name); err != nil {
		return "", usageErrorf("--name: %v", err)
	}
	text, err := sign.EncodePrivateKey(key)
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("%s exists: keygen never overwrites a key (remove it, or choose another --out)", path)
	}
	if err != nil {
		return "", err
	}
	if _, err := f.Write(text); err != nil {
		_ = f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: %q", name, config.KeyText(pub)), nil
}

// readApproverKey reads the private key file at path.
func readApproverKey(path string) (ed25519.PrivateKey, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the approver's key: %w", err)
	}
	key, err := sign.DecodePrivateKey(text)
	if err != nil {
		return nil, fmt.Errorf("the approver's key %s: %w", path, err)
	}
	return key, nil
}
