package adopt

import (
	"fmt"
	"strings"
	"unicode"
)

// renovateRule is the rule that leaves to imagebot what it updates: the
// images and charts of YAML files (imagebot's paths), whichever Renovate
// manager found them. Renovate applies rules in order and a later one
// wins, so it goes last; Renovate keeps everything else (Dockerfiles,
// npm, GitHub Actions).
const renovateRule = `{
  "description": "Container images and Helm charts in YAML files are updated by imagebot",
  "matchDatasources": ["docker", "helm"],
  "matchFileNames": ["**/*.yaml", "**/*.yml"],
  "enabled": false
}`

// renovateHandover says what to add to the Renovate config in file.
func renovateHandover(file string) string {
	where := "`packageRules` in `" + file + "`"
	if file == "package.json" {
		where = "`renovate.packageRules` in `package.json`"
	}
	return "Add this rule at the end of " + where + ", so that Renovate leaves the images and charts of YAML files to imagebot and the two never propose the same update (Renovate keeps updating everything else):\n\n" +
		"```json\n" + renovateRule + "\n```\n\n" +
		"If Renovate updated nothing else here, set `\"enabled\": false` at the top of its config (or uninstall it) instead; if its config has `enabledManagers`, the rule above is still what keeps it off imagebot's files."
}

// fluxHandover says which ImageUpdateAutomations to suspend: until then
// Flux commits the updates imagebot proposes as pull requests.
func fluxHandover(autos []fluxAutomation) string {
	if len(autos) == 0 {
		return "" // Flux only reflects tags here: it commits nothing imagebot proposes
	}
	var b strings.Builder
	b.WriteString("Suspend Flux's image automation once this is merged, or both update the same lines:\n\n")
	for i, a := range autos {
		if i == 20 {
			fmt.Fprintf(&b, "- … and %d more\n", len(autos)-i)
			break
		}
		ns, name, ok := strings.Cut(a.name, "/")
		if !ok {
			ns, name = "flux-system", a.name
		}
		fmt.Fprintf(&b, "- `%s` (`%s:%d`): `flux suspend image update %s -n %s`, and `spec.suspend: true` in the file so that it stays suspended\n",
			inert(a.name), inert(a.file), a.line, inert(name), inert(ns))
	}
	return b.String()
}

// inert makes a name from the repository (a file, an object's name) safe
// inside the bot's Markdown: no line break ends the list item, no
// backtick ends the code span, and no "<" or "@" forms a tag, a comment
// (a forged marker) or a mention.
func inert(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.NewReplacer("`", "'", "<", "<\u200b", "@", "@\u200b").Replace(s)
}
