exec { 'dup': command => '/bin/b' }
notify { 'y': colour => 'red' }
