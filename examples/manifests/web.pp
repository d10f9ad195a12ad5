# A web tier built from a class, a defined type, iteration and chains.

class web (
  String  $docroot = '/srv/www',
  Integer $workers = 4,
) {
  file { $docroot: ensure => directory }

  service { 'nginx':
    ensure => running,
    start  => '/usr/sbin/nginx',
    stop   => '/usr/sbin/nginx -s quit',
  }
}

define web::site (String $domain, Boolean $tls = false) {
  $root = "${web::docroot}/${title}"

  file { $root: ensure => directory }

  file { "${root}/index.html":
    ensure  => file,
    content => "<h1>${domain}</h1>\n",
    tag     => ['site-content'],
  }

  if $tls {
    exec { "certificate for ${domain}":
      command => "/usr/local/bin/issue-cert ${domain}",
      creates => "/etc/ssl/${domain}.pem",
    }
  }
}

include web

$sites = {
  'shop' => { 'domain' => 'shop.example.com', 'tls' => true },
  'blog' => { 'domain' => 'blog.example.com' },
}

$sites.each |$name, $site| {
  web::site { $name:
    domain => $site['domain'],
    tls    => $site['tls'] ? { undef => false, default => $site['tls'] },
  }
}

# Every page is in place before nginx is (re)started, and a page change
# restarts it; virtual resources tagged site-content would be realized too.
File <| tag == 'site-content' |> ~> Service['nginx']
