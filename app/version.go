package app

// Version is the application version, shown by the window and the CLI.
const Version = "0.1.0"
