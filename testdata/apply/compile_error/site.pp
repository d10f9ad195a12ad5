# Compile errors: every error is printed, nothing is applied, exit 1 even
# with --detailed-exitcodes.
exec { 'runs-not': command => 'echo runs-not >> DIR/order' }
exec { 'x': command => '/bin/true', require => Exec['nope'] }
notify { 'y': colour => 'red' }
