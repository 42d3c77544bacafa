module peregrine.dev/ws-load

go 1.22

require github.com/gorilla/websocket v1.5.3
