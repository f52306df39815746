package web

import "time"

// Config is the web tools' settings, filled by cmd from the process Config
// (only cmd reads the environment). Ranges are validated there.
type Config struct {
	FetchTimeout      time.Duration
	FetchMaxBytes     int64
	FetchMaxRedirects int
	SearchTimeout     time.Duration
	SearchMaxResults  int // results of a call that names no max_results
	SessionSearchCap  int
	SessionFetchCap   int
	AllowedDomains    []string
	BlockedDomains    []string

	SearchProvider string // "", tavily, ddg, host
	SearchKey      string
	SearchBaseURL  string

	EgressConfined bool
	HTTPSProxy     string
	HTTPProxy      string
	NoProxy        string
}

// Names of the variables behind the settings, for errors that name the fix.
const (
	VarFetchTimeout     = "STEERABLE_WEB_FETCH_TIMEOUT_MS"
	VarFetchMaxBytes    = "STEERABLE_WEB_FETCH_MAX_BYTES"
	VarFetchRedirects   = "STEERABLE_WEB_FETCH_MAX_REDIRECTS"
	VarSearchTimeout    = "STEERABLE_WEB_SEARCH_TIMEOUT_MS"
	VarSearchMaxResults = "STEERABLE_WEB_SEARCH_MAX_RESULTS"
	VarSearchCap        = "STEERABLE_WEB_SESSION_SEARCH_CAP"
	VarFetchCap         = "STEERABLE_WEB_SESSION_FETCH_CAP"
	VarAllowedDomains   = "STEERABLE_WEB_ALLOWED_DOMAINS"
	VarBlockedDomains   = "STEERABLE_WEB_BLOCKED_DOMAINS"
	VarSearchProvider   = "STEERABLE_WEB_SEARCH_PROVIDER"
	VarSearchKey        = "STEERABLE_WEB_SEARCH_API_KEY"
	VarSearchBaseURL    = "STEERABLE_WEB_SEARCH_BASE_URL"
)

// posture builds what both tools check first: the configured domain policy
// and the egress posture.
func (c Config) posture() (Policy, egress, error) {
	policy, err := NewPolicy(c.AllowedDomains, c.BlockedDomains, VarAllowedDomains, VarBlockedDomains)
	if err != nil {
		return Policy{}, egress{}, err
	}
	eg, err := newEgress(c)
	return policy, eg, err
}
