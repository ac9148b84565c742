package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"

	"github.com/imagebot/imagebot/internal/imagename"
)

// Each sender's body, as its documentation gives it; only what names the
// image is read. Errors never quote the body: it is the sender's, and a
// log or a reply is no place for it.

var digestRE = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// newPush checks what a body claims and normalizes the image name
// (docker.io/library/nginx), as the scan names references.
func newPush(image, tag, digest string) (push, error) {
	repo, err := name.NewRepository(image, name.StrictValidation)
	if err != nil {
		return push{}, errors.New("the image is not a valid repository name")
	}
	if _, err := name.NewTag(repo.Name()+":"+tag, name.StrictValidation); err != nil || tag == "" {
		return push{}, errors.New("the tag is not a valid tag")
	}
	if digest != "" && !digestRE.MatchString(digest) {
		return push{}, errors.New("the digest is not a sha256 digest")
	}
	return push{Image: imagename.String(repo), Tag: tag, Digest: digest}, nil
}

func decode(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return errors.New("the body is not the JSON this kind sends")
	}
	return nil
}

// generic: {"image": "ghcr.io/acme/api", "tag": "main-3f9a2c1", "digest": "sha256:..."}.
func parseGeneric(body []byte) ([]push, error) {
	var g struct{ Image, Tag, Digest string }
	if err := decode(body, &g); err != nil {
		return nil, err
	}
	p, err := newPush(g.Image, g.Tag, g.Digest)
	if err != nil {
		return nil, err
	}
	return []push{p}, nil
}

// github: the registry_package event (and the older package event) of a
// container published to GHCR: package_version.package_url names the
// image and tag, container_metadata.tag the tag and digest.
func parseGitHub(body []byte) ([]push, error) {
	type pkg struct {
		Name           string `json:"name"`
		Namespace      string `json:"namespace"`
		PackageType    string `json:"package_type"`
		PackageVersion struct {
			PackageURL        string `json:"package_url"`
			ContainerMetadata struct {
				Tag struct {
					Name   string `json:"name"`
					Digest string `json:"digest"`
				} `json:"tag"`
			} `json:"container_metadata"`
		} `json:"package_version"`
		Registry struct {
			URL string `json:"url"`
		} `json:"registry"`
	}
	var ev struct {
		Action          string `json:"action"`
		RegistryPackage *pkg   `json:"registry_package"`
		Package         *pkg   `json:"package"`
	}
	if err := decode(body, &ev); err != nil {
		return nil, err
	}
	p := ev.RegistryPackage
	if p == nil {
		p = ev.Package
	}
	if p == nil || !strings.EqualFold(p.PackageType, "container") {
		return nil, errors.New("not a container package event")
	}
	if ev.Action != "published" && ev.Action != "updated" {
		return nil, nil // deleted and the like: nothing new to move to
	}
	tag := p.PackageVersion.ContainerMetadata.Tag
	image := ""
	if ref, err := name.ParseReference(p.PackageVersion.PackageURL); err == nil && p.PackageVersion.PackageURL != "" {
		image = ref.Context().Name()
	} else {
		host := "ghcr.io"
		if r, err := url.Parse(p.Registry.URL); err == nil && r.Host != "" {
			host = r.Host
		}
		image = host + "/" + strings.ToLower(p.Namespace) + "/" + strings.ToLower(p.Name)
	}
	if tag.Name == "" {
		return nil, nil // an untagged version: no tag to move to
	}
	q, err := newPush(image, tag.Name, tag.Digest)
	if err != nil {
		return nil, err
	}
	return []push{q}, nil
}

// dockerhub: {"push_data": {"tag": "..."}, "repository": {"repo_name": "acme/api"}}.
// Docker Hub names no digest.
func parseDockerHub(body []byte) ([]push, error) {
	var ev struct {
		PushData struct {
			Tag string `json:"tag"`
		} `json:"push_data"`
		Repository struct {
			RepoName string `json:"repo_name"`
		} `json:"repository"`
	}
	if err := decode(body, &ev); err != nil {
		return nil, err
	}
	p, err := newPush("docker.io/"+ev.Repository.RepoName, ev.PushData.Tag, "")
	if err != nil {
		return nil, err
	}
	return []push{p}, nil
}

// quay: the repo_push notification, {"docker_url": "quay.io/acme/api",
// "updated_tags": ["..."]}. Quay names no digest.
func parseQuay(body []byte) ([]push, error) {
	var ev struct {
		DockerURL   string   `json:"docker_url"`
		UpdatedTags []string `json:"updated_tags"`
	}
	if err := decode(body, &ev); err != nil {
		return nil, err
	}
	var out []push
	for _, t := range ev.UpdatedTags {
		p, err := newPush(ev.DockerURL, t, "")
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, errors.New("no updated_tags")
	}
	return out, nil
}

// harbor: {"type": "PUSH_ARTIFACT", "event_data": {"resources": [{"digest",
// "tag", "resource_url": "harbor.example.com/library/api:tag"}]}}.
func parseHarbor(body []byte) ([]push, error) {
	var ev struct {
		Type      string `json:"type"`
		EventData struct {
			Resources []struct {
				Digest      string `json:"digest"`
				Tag         string `json:"tag"`
				ResourceURL string `json:"resource_url"`
			} `json:"resources"`
		} `json:"event_data"`
	}
	if err := decode(body, &ev); err != nil {
		return nil, err
	}
	if ev.Type != "PUSH_ARTIFACT" {
		return nil, nil // scans, deletions, quotas: nothing to move to
	}
	var out []push
	for _, r := range ev.EventData.Resources {
		if r.Tag == "" {
			continue
		}
		image := strings.TrimSuffix(r.ResourceURL, ":"+r.Tag)
		p, err := newPush(image, r.Tag, r.Digest)
		if err != nil {
			return nil, fmt.Errorf("resource: %w", err)
		}
		out = append(out, p)
	}
	return out, nil
}
