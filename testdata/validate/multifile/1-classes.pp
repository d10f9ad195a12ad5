# Several files form one catalog, evaluated in the order given.
class app { exec { 'app-install': command => '/bin/install' } }
$version = '1.2'
