schedule { 's': range => 'foo' }
schedule { 'p': period => 'fortnightly' }
schedule { 'r': period => 'daily', repeat => 'often' }
schedule { 'w': weekday => ['Mon', 'Funday'] }
schedule { 'm': periodmatch => 'sometimes' }
schedule { 'z': range => '1 - 2', time_zone => 'Mars/Olympus' }
schedule { 'h': range => '25:00 - 26:00' }
