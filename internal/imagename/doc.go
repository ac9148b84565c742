// Package imagename parses and spells image repository names, once, for
// the whole pipeline: scan parses each reference's name here, and every
// later stage carries the parsed name.Repository instead of a string to
// parse again.
//
// It adds two things to go-containerregistry's pkg/name, which does the
// parsing: one value per repository however it is written ("nginx",
// "docker.io/nginx" and "index.docker.io/library/nginx" are equal, so a
// parsed name can key a map), and the spelling imagebot prints, keys its
// config and names branches with ("docker.io/library/nginx", as Docker
// writes it, where pkg/name says "index.docker.io"). ShortDigest is the
// one spelling of a digest that imagebot shows people.
//
// It never talks to a registry and holds no state.
package imagename
