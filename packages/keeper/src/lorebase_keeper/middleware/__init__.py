"""The middlewares that belong to no room: body limits, text checks, browser headers, and the web
app's files. Their order is set in one place, `lorebase_keeper.stack`."""
