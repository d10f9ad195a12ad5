include app
notify { 'version': message => $version, require => Class['app'] }
