"""The service around the controller: systemd notification and watchdog, logging, the drivers opened
from the configuration, the self-test, bug reports and the raw-frame recorder."""
