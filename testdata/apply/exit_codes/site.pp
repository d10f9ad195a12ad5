# Exit codes. Without --detailed-exitcodes: 0 however the run went. With
# it: 0 nothing changed (also a noop run with pending changes, as in Puppet
# 7), 2 changes, 4 failures, 6 both. The runs file flips the guard files
# between runs.
exec { 'change': command => 'echo change >> DIR/order', unless => 'test -f DIR/no-change' }
exec { 'fail': command => 'echo fail >> DIR/order; false', onlyif => 'test -f DIR/do-fail' }
exec { 'mark': command => 'touch DIR/no-change', creates => 'DIR/no-change', require => Exec['change'] }
