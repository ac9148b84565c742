// Package imagefacts holds what a registry says about one image: the
// facts the gates judge and pull request bodies show. It is a leaf, so
// that the registry client, which writes facts, and the gates, which read
// them, need not import each other: a low room never imports a high one.
package imagefacts
