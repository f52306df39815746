package web

import (
	"context"
	"errors"
)

// Kind names the check behind an error of Fetch or Search, for the
// result's data.kind: a host can tell a policy refusal from a flaky
// network without parsing messages.
func Kind(err error) string {
	var (
		re *RedirectError
		rl *RedirectLimitError
		te *TimeoutError
		ce *ContentError
		se *StatusError
	)
	switch {
	case errors.Is(err, ErrEgressMisconfigured):
		return "egress"
	case errors.Is(err, ErrBadURL):
		return "url"
	case errors.Is(err, ErrDomainRefused):
		return "domain_policy"
	case errors.Is(err, ErrAddressRefused):
		return "address"
	case errors.Is(err, ErrCapReached):
		return "session_cap"
	case errors.Is(err, ErrProxyRefused):
		return "proxy"
	case errors.Is(err, ErrBadQuery):
		return "arguments"
	case errors.As(err, &re):
		return "cross_origin_redirect"
	case errors.As(err, &rl):
		return "redirect_limit"
	case errors.As(err, &se):
		return "redirect_status"
	case errors.As(err, &te), errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.As(err, &ce):
		return "content"
	case errors.Is(err, ErrNoAddress):
		return "dns"
	}
	return "network"
}
