package registrytest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
)

type tagList struct {
	Name string   `json:"name"`
	Tags []string `json:"tags"`
}

// servePage answers a tags/list request one page at a time, the page
// after last. It asks pkg/registry for the whole sorted list and cuts the
// page itself: the registry's own ?last= handling returns everything when
// last is the final tag, which would make a client loop. link, when set,
// replaces the Link to the next page (the faults SelfLink and RepeatPages).
func (s *Server) servePage(w http.ResponseWriter, r *http.Request, last, link string) {
	all := r.Clone(r.Context())
	all.URL.RawQuery = ""
	rec := httptest.NewRecorder()
	s.reg.ServeHTTP(rec, all)
	if rec.Code != http.StatusOK {
		copyHeader(w.Header(), rec.Header())
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
		return
	}
	var list tagList
	if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}

	tags := list.Tags // sorted by pkg/registry
	if last != "" {
		i := 0
		for i < len(tags) && tags[i] <= last {
			i++
		}
		tags = tags[i:]
	}
	n := s.pageSize
	if n <= 0 {
		n = 2
	}
	if v, err := strconv.Atoi(r.URL.Query().Get("n")); err == nil && v > 0 && v < n {
		n = v
	}
	if len(tags) > n {
		tags = tags[:n]
		if link == "" {
			next := url.Values{"n": {strconv.Itoa(n)}, "last": {tags[n-1]}}
			link = urlPath(list.Name) + "?" + next.Encode()
		}
	}
	if link != "" {
		w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next"`, link))
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(tagList{Name: list.Name, Tags: tags})
}
