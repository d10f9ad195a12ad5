package awsinventory

import (
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/smithy-go"

	"github.com/almanac-sh/almanac/internal/fleet"
)

// otherAttempts is how many attempts a request gets when it fails for a
// reason other than throttling (a 5xx answer, a dropped connection).
const otherAttempts = 4

// patientRetryer is the SDK's adaptive retryer (client-side rate limiting
// that slows down when AWS throttles), made to retry throttling for as long
// as the request's context allows: a throttled action is late, not failed.
// Other retryable errors get otherAttempts attempts.
type patientRetryer struct {
	*retry.AdaptiveMode
}

func newRetryer(backoff retry.BackoffDelayer) aws.RetryerV2 {
	return patientRetryer{retry.NewAdaptiveMode(func(o *retry.AdaptiveModeOptions) {
		o.StandardOptions = append(o.StandardOptions, func(so *retry.StandardOptions) {
			so.MaxAttempts = otherAttempts
			// The retry quota would end throttling retries early; the
			// adaptive rate limit already keeps retries from piling up.
			so.RateLimiter = ratelimit.None
			if backoff != nil {
				so.Backoff = backoff
			}
		})
	})}
}

// MaxAttempts is unbounded; RetryDelay ends the retries that are bounded.
func (patientRetryer) MaxAttempts() int { return 0 }

// RetryDelay gives up on an error that is not throttling after
// otherAttempts attempts.
func (r patientRetryer) RetryDelay(attempt int, err error) (time.Duration, error) {
	if !throttling(err) && attempt >= otherAttempts {
		return 0, fmt.Errorf("gave up after %d attempts: %w", attempt, err)
	}
	return r.AdaptiveMode.RetryDelay(attempt, err)
}

var throttles = retry.IsErrorThrottles(retry.DefaultThrottles)

// throttling reports whether err is AWS throttling the caller.
func throttling(err error) bool {
	return throttles.IsErrorThrottle(err) == aws.TrueTernary
}

// ActionError is the failure of one action on one resource.
type ActionError struct {
	Action fleet.Action
	ID     string
	Err    error
}

// Error names the action, the resource and AWS's error code and message.
func (e *ActionError) Error() string {
	var api smithy.APIError
	if errors.As(e.Err, &api) {
		return fmt.Sprintf("%s %s: %s: %s", e.Action, e.ID, api.ErrorCode(), api.ErrorMessage())
	}
	return fmt.Sprintf("%s %s: %v", e.Action, e.ID, e.Err)
}

// Unwrap returns the SDK's error.
func (e *ActionError) Unwrap() error { return e.Err }

// Code returns AWS's error code, or "" when the failure was not an AWS
// answer (a timeout, a refused connection).
func (e *ActionError) Code() string {
	var api smithy.APIError
	if errors.As(e.Err, &api) {
		return api.ErrorCode()
	}
	return ""
}
