"""ASGI middleware that refuses request bodies over a size, before they are read into memory.

The GraphQL limits bound the query document, but variables (and ingested write-ups) arrive in
the same JSON body; without this a client could make the server buffer any amount of it.
"""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyTooLarge(Exception):
    pass


class BodySizeLimit:
    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    def refusal(self) -> JSONResponse:
        message = f"The request body is larger than {self.max_bytes:,} bytes."
        return JSONResponse({"errors": [{"message": message}]}, status_code=413)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self.refusal()(scope, receive, send)
            return
        received = 0
        response_started = False

        async def counting_receive() -> Message:
            # A chunked body has no length up front: count it as it streams in.
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    raise BodyTooLarge()
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal response_started
            response_started = response_started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if not response_started:
                await self.refusal()(scope, receive, send)
