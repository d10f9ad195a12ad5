# Errors from every file, sorted by file and position.
exec { 'dup': command => '/bin/a' }
notify { 'x': require => Exec['missing-b'] }
