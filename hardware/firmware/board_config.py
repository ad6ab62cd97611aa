"""Generated from board.toml by `tavli-board firmware-config`; do not edit."""

LINK = 'usb'
BAUDRATE = 115200
UART_ID = 0
UART_TX_PIN = 0
UART_RX_PIN = 1
I2C_ID = 0
I2C_SDA_PIN = 4
I2C_SCL_PIN = 5
I2C_HZ = 400000
MUX_ADDRESSES = (112, 113, 114, 115)
COLOUR_BY = 'magnet'
CHECKER_G = 22.0
COUNT_WINDOW_G = 2.0
STEADY_G = 0.45
STEADY_SCANS = 8
HALL_ADDRESS = 34
HALL_THRESHOLD_MT = 3.0
WHITE_FIELD_MIN_MT = 9.0
BLACK_FIELD_MAX_MT = 7.5
MAINTENANCE_PIN = 22
WHITE_CHECKER_G = 16.0
BLACK_CHECKER_G = 17.0
MASS_TOLERANCE_G = 0.35
CHANNELS = 28
LOCATIONS = ('point:1', 'point:2', 'point:3', 'point:4', 'point:5', 'point:6', 'point:7', 'point:8', 'point:9', 'point:10', 'point:11', 'point:12', 'point:13', 'point:14', 'point:15', 'point:16', 'point:17', 'point:18', 'point:19', 'point:20', 'point:21', 'point:22', 'point:23', 'point:24', 'bar:white', 'bar:black', 'off:white', 'off:black')
