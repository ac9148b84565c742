package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/imagebot/imagebot/internal/gitops"
)

// The environment of a GitHub App, the alternative to GITHUB_TOKEN whose
// pull requests trigger the repository's workflows.
const (
	envAppID           = "IMAGEBOT_APP_ID"
	envAppKey          = "IMAGEBOT_APP_PRIVATE_KEY"
	envAppKeyFile      = "IMAGEBOT_APP_PRIVATE_KEY_FILE"
	envAppInstallation = "IMAGEBOT_APP_INSTALLATION_ID"
)

// maxKeySize bounds a private key file: a PEM key is a few kilobytes.
const maxKeySize = 64 << 10

// githubAuth reads how run authenticates to GitHub: GITHUB_TOKEN, and a
// GitHub App when IMAGEBOT_APP_ID and its private key are set (the App
// wins over the token; gitops logs so). A half-configured App is an error
// that says what is missing, never a silent fall back to the token.
func githubAuth(getenv func(string) string) (token string, app *gitops.App, err error) {
	token = getenv("GITHUB_TOKEN")
	idText, key, keyFile := strings.TrimSpace(getenv(envAppID)), getenv(envAppKey), strings.TrimSpace(getenv(envAppKeyFile))
	instText := strings.TrimSpace(getenv(envAppInstallation))
	switch {
	case idText == "" && key == "" && keyFile == "" && instText == "":
		return token, nil, nil
	case idText == "":
		return "", nil, fmt.Errorf("%s is not set, but the App's other variables are: set it to the App's numeric ID, shown on the App's settings page", envAppID)
	case key == "" && keyFile == "":
		return "", nil, fmt.Errorf("%s is set, but neither %s (the key's PEM text) nor %s (a path to the .pem file): set one to the App's private key", envAppID, envAppKey, envAppKeyFile)
	case key != "" && keyFile != "":
		return "", nil, fmt.Errorf("both %s and %s are set: keep one", envAppKey, envAppKeyFile)
	}
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id <= 0 {
		// The client ID ("Iv1.…") sits next to the App ID on the
		// settings page; only the number works in a JWT.
		return "", nil, fmt.Errorf("%s %q: want the App's numeric App ID from its settings page, not its name or client ID", envAppID, idText)
	}
	var inst int64
	if instText != "" {
		if inst, err = strconv.ParseInt(instText, 10, 64); err != nil || inst <= 0 {
			return "", nil, fmt.Errorf("%s %q: want the installation's number (the end of its settings URL), or leave it unset to find it from the repository", envAppInstallation, instText)
		}
	}
	source := envAppKey
	pem := []byte(key)
	if keyFile != "" {
		source = envAppKeyFile
		if pem, err = readKey(keyFile); err != nil {
			return "", nil, fmt.Errorf("%s: %w", envAppKeyFile, err)
		}
	}
	if app, err = gitops.NewApp(id, pem, inst); err != nil {
		return "", nil, fmt.Errorf("%s: %w", source, err)
	}
	return token, app, nil
}

// readKey reads a private key file, refusing anything too large to be one.
func readKey(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxKeySize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxKeySize {
		return nil, errors.New(path + " is larger than a private key can be: name the App's .pem file")
	}
	return b, nil
}
